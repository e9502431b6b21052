mod batch;
mod check;
mod inspect;
mod interrupt;
mod retarget;
