//! Two viewports side by side (RobotExpressive, CesiumMan) to see the 3D viewport work.
//! `VIEWPORT_DEMO_SCREENSHOT=/tmp/shot.png` saves a screenshot and exits.

fn main() -> anyhow::Result<()> {
    retarget_studio::app::viewport::demo::run_demo()
}
