//! The text of a BVH file: the hierarchy block and the frame lines, with numbers at six
//! decimals (a micrometre in centimetres, a millionth of a degree), far below f32 noise, and
//! the frame time at eight (so a reader gets the rate back to 1e-6).

use super::{Kind, Motion, Plan};
use glam::DVec3;
use std::fmt::Write as _;
use std::io::Write;

const ROTATION_CHANNELS: &str = "Zrotation Xrotation Yrotation";

/// `HIERARCHY` … `Frame Time:`, everything before the frame lines.
pub(super) fn hierarchy_text(
    plan: &Plan,
    motion: &Motion,
    frames: usize,
    step_secs: f64,
) -> String {
    enum Step {
        Enter(usize),
        Leave(usize),
    }
    let mut s = String::from("HIERARCHY\n");
    let mut stack: Vec<Step> = plan
        .order
        .iter()
        .rev()
        .filter(|&&j| motion.parents[j].is_none())
        .map(|&j| Step::Enter(j))
        .collect();
    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(j) => {
                open_joint(&mut s, plan, motion, j);
                stack.push(Step::Leave(j));
                stack.extend(plan.children[j].iter().rev().map(|&c| Step::Enter(c)));
            }
            Step::Leave(j) => {
                let pad = "\t".repeat(plan.depth[j]);
                if plan.children[j].is_empty() && !plan.is_end_site(j) {
                    // A leaf that is a real bone keeps its rotation; BVH readers expect every
                    // chain to end in an End Site, which here adds no length.
                    end_site(&mut s, plan.depth[j] + 1, DVec3::ZERO);
                }
                let _ = writeln!(s, "{pad}}}");
            }
        }
    }
    let _ = write!(s, "MOTION\nFrames: {frames}\nFrame Time: {step_secs:.8}\n");
    s
}

/// The joint's name line, `{`, `OFFSET` and `CHANNELS` (or a whole End Site block).
fn open_joint(s: &mut String, plan: &Plan, motion: &Motion, j: usize) {
    let pad = "\t".repeat(plan.depth[j]);
    let positions = match plan.kinds[j] {
        Kind::EndSite => {
            // An End Site has no children and no channels; `Leave` writes its `}`.
            let _ = write!(s, "{pad}End Site\n{pad}{{\n");
            let _ = writeln!(s, "{pad}\tOFFSET {}", vec3(motion.offset(0, j)));
            return;
        }
        Kind::Joint { positions } => positions,
    };
    let root = motion.parents[j].is_none();
    let keyword = if root { "ROOT" } else { "JOINT" };
    let _ = write!(s, "{pad}{keyword} {}\n{pad}{{\n", plan.names[j]);
    // Root: position channels give the place, so OFFSET is zero and readers that add OFFSET
    // to them agree with those that replace it. Others: the fixed offset, or the rest one
    // where position channels replace it.
    let offset = if root {
        DVec3::ZERO
    } else if positions {
        motion.rest_offsets[j]
    } else {
        motion.offset(0, j)
    };
    let _ = writeln!(s, "{pad}\tOFFSET {}", vec3(offset));
    if positions {
        let _ = writeln!(
            s,
            "{pad}\tCHANNELS 6 Xposition Yposition Zposition {ROTATION_CHANNELS}"
        );
    } else {
        let _ = writeln!(s, "{pad}\tCHANNELS 3 {ROTATION_CHANNELS}");
    }
}

fn end_site(s: &mut String, depth: usize, offset: DVec3) {
    let pad = "\t".repeat(depth);
    let _ = write!(
        s,
        "{pad}End Site\n{pad}{{\n{pad}\tOFFSET {}\n{pad}}}\n",
        vec3(offset)
    );
}

/// One line per frame: per joint in file order, positions then the Z X Y angles in degrees.
pub(super) fn write_frames(
    w: &mut dyn Write,
    plan: &Plan,
    motion: &Motion,
    eulers: &[[f64; 3]],
) -> std::io::Result<()> {
    let n = motion.joints;
    let mut line = String::new();
    for f in 0..motion.frames() {
        line.clear();
        for &j in &plan.order {
            let Kind::Joint { positions } = plan.kinds[j] else {
                continue;
            };
            if positions {
                let _ = write!(line, "{} ", vec3(motion.offset(f, j)));
            }
            let [z, x, y] = eulers[f * n + j];
            let _ = write!(
                line,
                "{} {} {} ",
                num(z.to_degrees()),
                num(x.to_degrees()),
                num(y.to_degrees())
            );
        }
        line.pop();
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Six decimals; a value that rounds to zero is written `0.000000`, never `-0.000000`.
fn num(v: f64) -> String {
    let v = if v.abs() < 5e-7 { 0.0 } else { v };
    format!("{v:.6}")
}

fn vec3(v: DVec3) -> String {
    format!("{} {} {}", num(v.x), num(v.y), num(v.z))
}
