//! `retarget-studio screenshot` end to end under Xvfb: both viewports must show a character
//! (the robot's orange on the left, the VRM's white body on the right), not only background;
//! a textured character (CesiumMan) must show its texture's colours.
//! Needs `Xvfb` (scripts/setup.sh installs it) and Mesa's software OpenGL.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private X server for this test, stopped when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// Lets Xvfb pick a free display itself (`-displayfd`): tests run in parallel, and a
    /// display chosen by probing lock files can be taken by another test in between.
    fn start() -> Xvfb {
        use std::io::{BufRead, BufReader};
        let spawned = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1600x1000x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => panic!("cannot start Xvfb ({e}): run scripts/setup.sh, which installs it"),
        };
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb writes its display number");
        let n: u32 = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("Xvfb gave no display number: {line:?}"));
        let socket = format!("/tmp/.X11-unix/X{n}");
        let started = Instant::now();
        while !Path::new(&socket).exists() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        Xvfb {
            child,
            display: format!(":{n}"),
        }
    }
}

impl Drop for Xvfb {
    /// SIGTERM, not `kill()`'s SIGKILL: Xvfb then removes its lock file and socket, so runs
    /// do not use up the displays one stale lock at a time.
    fn drop(&mut self) {
        let terminated = Command::new("kill")
            .arg(self.child.id().to_string())
            .status()
            .is_ok_and(|s| s.success());
        if !terminated {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

pub(crate) fn count(
    img: &image::RgbaImage,
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
    pred: impl Fn([u8; 4]) -> bool,
) -> usize {
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| pred(img.get_pixel(x, y).0))
        .count()
}

/// Runs `retarget-studio screenshot` (on `project`, or the demo) at frame 20 and returns the
/// image; `keep_as` names the copy made when `RETARGET_SCREENSHOT_DIR` is set.
fn screenshot(project: Option<&Path>, keep_as: &str) -> image::RgbaImage {
    screenshot_with(project, &["--frame", "20"], keep_as)
}

/// `screenshot` with other arguments (`--frame`, `--view`, `--tab`).
pub(crate) fn screenshot_with(
    project: Option<&Path>,
    args: &[&str],
    keep_as: &str,
) -> image::RgbaImage {
    let xvfb = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shot.png");
    let mut command = crate::common::studio();
    command.args([
        "screenshot",
        "--out",
        out.to_str().unwrap(),
        "--size",
        "1280x800",
    ]);
    command.args(args);
    if let Some(project) = project {
        command.arg(project);
    }
    let output = command
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "screenshot failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    if let Ok(keep) = std::env::var("RETARGET_SCREENSHOT_DIR") {
        std::fs::copy(&out, Path::new(&keep).join(keep_as)).unwrap();
    }
    image::open(&out).unwrap().to_rgba8()
}

/// The viewports share the space left of the ~420 pt tool panel, below the header rows:
/// the central width and the rows to look at.
pub(crate) fn viewport_area(img: &image::RgbaImage) -> (u32, u32, u32) {
    let (w, h) = img.dimensions();
    assert!(w >= 1000 && h >= 600, "{w}x{h}");
    (w - (420.0 * w as f32 / 1280.0) as u32, h / 8, h * 7 / 8)
}

#[test]
fn screenshot_of_the_demo_shows_both_characters() {
    let img = screenshot(None, "demo.png");
    let (central, y0, y1) = viewport_area(&img);
    let orange = |p: [u8; 4]| p[0] > 170 && p[1] > 80 && p[1] < 190 && p[2] < 100;
    let white = |p: [u8; 4]| p[0] > 170 && p[1] > 170 && p[2] > 170 && p[0].abs_diff(p[2]) < 40;
    let background = |p: [u8; 4]| p[0] < 60 && p[1] < 60 && p[2] < 60;
    let left_orange = count(&img, 0, central / 2, y0, y1, orange);
    let right_white = count(&img, central / 2, central, y0, y1, white);
    let right_area = ((central / 2) * (y1 - y0)) as usize;
    let right_background = count(&img, central / 2, central, y0, y1, background);
    eprintln!(
        "robot pixels {left_orange}, VRM pixels {right_white}, right background {right_background}/{right_area}"
    );
    assert!(
        left_orange > 2000,
        "the robot shows in the left viewport: {left_orange} orange pixels"
    );
    assert!(
        right_white > 2000,
        "the VRM character shows in the right viewport: {right_white} white pixels"
    );
    assert!(
        right_background > right_area / 3,
        "the viewport background is drawn too"
    );
}

#[test]
fn screenshot_shows_cesium_mans_texture() {
    // The robot's dance onto CesiumMan, whose texture is white with blue and green strokes
    // and the blue-and-green Cesium logo on its face (untextured, it would be all white).
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let project = dir.path().join("cesium.ron");
    std::fs::write(
        &project,
        format!(
            r#"(version: 1, source: (path: "{}", clip: Some("Dance")), target: (path: "{}"))"#,
            assets.join("gltf/RobotExpressive.glb").display(),
            assets.join("gltf/CesiumMan.glb").display()
        ),
    )
    .unwrap();
    let img = screenshot(Some(&project), "cesium.png");
    let (central, y0, y1) = viewport_area(&img);
    let rgb = |p: [u8; 4]| (p[0] as i32, p[1] as i32, p[2] as i32);
    let blue = |p: [u8; 4]| {
        let (r, g, b) = rgb(p);
        b > 150 && b > r + 60 && b > g + 15
    };
    let green = |p: [u8; 4]| {
        let (r, g, b) = rgb(p);
        g > 80 && g > r + 20 && g > b + 30
    };
    let (right_blue, right_green) = (
        count(&img, central / 2, central, y0, y1, blue),
        count(&img, central / 2, central, y0, y1, green),
    );
    eprintln!("CesiumMan: blue pixels {right_blue}, green pixels {right_green}");
    assert!(
        right_blue > 400 && right_green > 400,
        "CesiumMan shows its texture: {right_blue} blue, {right_green} green pixels"
    );
}

#[test]
fn screenshot_of_a_project_that_does_not_open_fails_and_names_the_file() {
    let xvfb = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let demo = std::fs::read_to_string(assets.join("demo.ron")).unwrap();
    let project = demo
        .replace(
            "\"gltf/RobotExpressive.glb\"",
            &format!("{:?}", assets.join("gltf/RobotExpressive.glb")),
        )
        .replace("\"vrm/cryptovoxels.vrm\"", "\"missing_character.vrm\"");
    assert_ne!(project, demo);
    let project_path = dir.path().join("broken.ron");
    std::fs::write(&project_path, project).unwrap();
    let out = dir.path().join("shot.png");
    let output = crate::common::studio()
        .args(["screenshot", "--out", out.to_str().unwrap()])
        .arg(&project_path)
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("missing_character.vrm"), "stderr: {stderr}");
    assert!(
        out.exists(),
        "the image that shows the problem is still written"
    );
}

/// The floor as drawn, lit: a dark slate, greener than red, neither the background's
/// near-black nor a character's colours.
fn floor_colored(p: [u8; 4]) -> bool {
    let (r, g, b) = (p[0] as i32, p[1] as i32, p[2] as i32);
    (35..=110).contains(&g) && g >= r + 6 && (g - b).abs() <= 12 && r >= 25
}

/// A project of CMU's walk onto CesiumMan in `dir`, with no map.
fn walk_project(dir: &Path) -> std::path::PathBuf {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let project = dir.join("walk.ron");
    std::fs::write(
        &project,
        format!(
            r#"(version: 1, source: (path: "{}"), target: (path: "{}"))"#,
            assets.join("bvh/02_01.bvh").display(),
            assets.join("gltf/CesiumMan.glb").display()
        ),
    )
    .unwrap();
    project
}

#[test]
fn screenshot_of_the_solve_tab_shows_the_contact_bars() {
    // Mapped by `map`, as a user would (a project with no map plants no feet).
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("walk_mapped.ron");
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mapped = crate::common::studio()
        .arg("map")
        .arg("--source")
        .arg(assets.join("bvh/02_01.bvh"))
        .arg("--target")
        .arg(assets.join("gltf/CesiumMan.glb"))
        .arg("--out")
        .arg(&project)
        .output()
        .unwrap();
    assert!(mapped.status.success(), "{mapped:?}");
    let args = ["--tab", "solve", "--view", "side"];
    let img = screenshot_with(Some(&project), &args, "tab_solve.png");
    let (w, h) = img.dimensions();
    // The bars' blue, in the bottom rows under the quality strip: two feet, several
    // contacts each, over much of the clip.
    let bar_blue = |p: [u8; 4]| p[0] < 100 && (110..150).contains(&p[1]) && p[2] > 190;
    let blue = count(&img, 0, w, h * 9 / 10, h, bar_blue);
    assert!(blue > 2000, "contact bars: {blue} pixels");
}

#[test]
fn screenshot_from_the_side_shows_the_floor_under_the_feet() {
    // CMU's walk onto CesiumMan, mid-clip, both cameras looking along -X.
    let dir = tempfile::tempdir().unwrap();
    let project = walk_project(dir.path());
    let args = ["--frame", "170", "--view", "side"];
    let img = screenshot_with(Some(&project), &args, "walk_side.png");
    let (w, h) = img.dimensions();
    // CesiumMan's white body in the viewports: below the rows of toggles and names, left
    // of the tool panel (from x = 0.49 w), in rows and columns with a few white pixels (one
    // stray pixel of antialiased text is not a body).
    let white = |p: [u8; 4]| p[0] > 200 && p[1] > 200 && p[2] > 200;
    let (x0, x1, y0, y1) = (0, w * 45 / 100, h / 6, h * 9 / 10);
    let rows: Vec<u32> = (y0..y1)
        .filter(|&y| count(&img, x0, x1, y, y + 1, white) >= 3)
        .collect();
    let (&top, &feet) = (rows.first().unwrap(), rows.last().unwrap());
    assert!(
        feet - top > h / 4,
        "CesiumMan stands tall: rows {top}..{feet}"
    );
    let columns: Vec<u32> = (x0..x1)
        .filter(|&x| count(&img, x, x + 1, top, feet + 1, white) >= 3)
        .collect();
    let (left, right) = (columns[0], *columns.last().unwrap());
    // Under the feet, across the character's width, the floor fills most of the view.
    let below = count(
        &img,
        left,
        right + 1,
        feet + 2,
        (feet + 40).min(h),
        floor_colored,
    );
    let area = ((right + 1 - left) * ((feet + 40).min(h) - feet - 2)) as usize;
    eprintln!("feet at row {feet}, columns {left}..{right}: {below} of {area} floor pixels below");
    assert!(
        below > area / 2,
        "the floor shows under the feet: {below} of {area} pixels"
    );
    // And the floor reaches up behind the character: it is a plane seen from above, not a
    // line at the horizon.
    let behind = count(&img, x0, x1, top + (feet - top) / 2, feet, floor_colored);
    assert!(behind > 2000, "floor behind the legs: {behind} pixels");
}

/// `--size` is the picture's size whatever a saved session says: a screenshot run reads no
/// saved state (window, panel widths, preferences) and writes none.
#[test]
fn screenshot_size_is_honoured_over_a_saved_session() {
    let xvfb = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let saved = "{\"window\":\"(inner_size_points: Some((1500.0, 950.0)))\"}";
    std::fs::write(state.join("app.ron"), saved).unwrap();
    let out = dir.path().join("shot.png");
    let output = crate::common::studio()
        .args([
            "screenshot",
            "--out",
            out.to_str().unwrap(),
            "--size",
            "1000x700",
        ])
        .env("DISPLAY", &xvfb.display)
        .env("RETARGET_STUDIO_STATE_DIR", &state)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "screenshot failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (1000, 700));
    assert_eq!(
        std::fs::read_to_string(state.join("app.ron")).unwrap(),
        saved,
        "the saved session is left alone"
    );
}
