mod batch;
mod check;
mod help;
mod inspect;
mod interrupt;
mod retarget;
