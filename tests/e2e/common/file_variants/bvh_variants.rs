//! BVH variants with the same world motion: a zero pose that is not a T-pose (every joint's
//! axes turned so its first child lies along +X, as in LAFAN1 and the Bandai Namco set), a
//! Z-up copy, the root OFFSET at hip height, and other units. A small parser/writer of their own (f64), independent of the product's reader.

use crate::common::variants::Lcg;
use glam::{DQuat, DVec3, EulerRot};

/// One joint or End Site, in file order.
#[derive(Clone, Debug)]
pub struct BvhNode {
    pub name: String,
    pub parent: Option<usize>,
    pub offset: DVec3,
    /// Channel names as written (`Xposition`, `Zrotation`, …); none for an End Site.
    pub channels: Vec<String>,
    pub end_site: bool,
}

/// A parsed BVH: nodes in file order (the frame columns follow it) and the frames.
#[derive(Clone, Debug)]
pub struct Bvh {
    pub nodes: Vec<BvhNode>,
    /// The `Frame Time:` token, kept as written.
    pub frame_time: String,
    pub frames: Vec<Vec<f64>>,
}

impl Bvh {
    pub fn parse(text: &str) -> Bvh {
        let (head, motion) = text.split_once("MOTION").expect("a MOTION section");
        let mut nodes: Vec<BvhNode> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut tokens = head.split_whitespace().peekable();
        while let Some(tok) = tokens.next() {
            match tok {
                "ROOT" | "JOINT" | "End" => {
                    let end_site = tok == "End";
                    let name = tokens.next().unwrap().to_owned();
                    nodes.push(BvhNode {
                        name: if end_site { "End Site".into() } else { name },
                        parent: stack.last().copied(),
                        offset: DVec3::ZERO,
                        channels: Vec::new(),
                        end_site,
                    });
                }
                "{" => stack.push(nodes.len() - 1),
                "}" => {
                    stack.pop();
                }
                "OFFSET" => {
                    let mut v = [0.0; 3];
                    v.iter_mut().for_each(|x| *x = num(tokens.next()));
                    nodes.last_mut().unwrap().offset = DVec3::from(v);
                }
                "CHANNELS" => {
                    let n = num(tokens.next()) as usize;
                    let ch = (0..n).map(|_| tokens.next().unwrap().to_owned()).collect();
                    nodes.last_mut().unwrap().channels = ch;
                }
                _ => {}
            }
        }
        let mut lines = motion.lines().map(str::trim).filter(|l| !l.is_empty());
        let frames: usize = lines.next().unwrap()["Frames:".len()..]
            .trim()
            .parse()
            .unwrap();
        let frame_time = lines.next().unwrap()["Frame Time:".len()..]
            .trim()
            .to_owned();
        let frames = lines
            .take(frames)
            .map(|l| l.split_whitespace().map(|t| num(Some(t))).collect())
            .collect();
        Bvh {
            nodes,
            frame_time,
            frames,
        }
    }

    pub fn write(&self) -> String {
        let mut out = String::from("HIERARCHY\n");
        self.write_node(0, 0, &mut out);
        out.push_str(&format!(
            "MOTION\nFrames: {}\nFrame Time: {}\n",
            self.frames.len(),
            self.frame_time
        ));
        for f in &self.frames {
            let row: Vec<String> = f.iter().map(|v| fmt(*v)).collect();
            out.push_str(&row.join(" "));
            out.push('\n');
        }
        out
    }

    fn write_node(&self, i: usize, depth: usize, out: &mut String) {
        let pad = "\t".repeat(depth);
        let n = &self.nodes[i];
        let head = match (n.end_site, n.parent) {
            (true, _) => "End Site".to_owned(),
            (false, None) => format!("ROOT {}", n.name),
            (false, Some(_)) => format!("JOINT {}", n.name),
        };
        let o = n.offset;
        out.push_str(&format!("{pad}{head}\n{pad}{{\n"));
        out.push_str(&format!(
            "{pad}\tOFFSET {} {} {}\n",
            fmt(o.x),
            fmt(o.y),
            fmt(o.z)
        ));
        if !n.end_site {
            let ch = n.channels.join(" ");
            out.push_str(&format!("{pad}\tCHANNELS {} {ch}\n", n.channels.len()));
        }
        for c in self.children(i) {
            self.write_node(c, depth + 1, out);
        }
        out.push_str(&format!("{pad}}}\n"));
    }

    pub fn children(&self, i: usize) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&c| self.nodes[c].parent == Some(i))
            .collect()
    }

    /// Each rotation channel moved by whole turns towards the previous frame's value.
    pub fn unwrap_rotations(&mut self) {
        let columns = self.columns();
        unwrap_angles(self, &columns);
    }

    /// The first frame column of each node.
    fn columns(&self) -> Vec<usize> {
        let mut at = 0;
        self.nodes
            .iter()
            .map(|n| {
                at += n.channels.len();
                at - n.channels.len()
            })
            .collect()
    }
}

fn num(t: Option<&str>) -> f64 {
    t.unwrap().parse().expect("a number")
}

fn fmt(v: f64) -> String {
    let s = format!("{v:.6}");
    if s == "-0.000000" {
        "0.000000".into()
    } else {
        s
    }
}

/// The same motion with every joint's zero pose turned: a constant `C_j` per joint takes +X
/// onto its first child's offset (twist seeded), so that offset becomes `(|o|, 0, 0)` and the
/// other children's offsets `C_j⁻¹·o`; each frame's rotation becomes `C_parent⁻¹·L·C_j`
/// (root: `L·C_root`), written in the joint's own channel order. The root OFFSET becomes the
/// first frame's root position. A joint whose first child has no length (CMU `LHipJoint`,
/// `LowerBack`, zeroed End Sites) takes the first child that has one, and when none has, a
/// random `C` (nothing can show it but the angles).
pub fn degenerate_zero_pose(bvh: &str, seed: u64) -> String {
    let mut b = Bvh::parse(bvh);
    let mut rng = Lcg(seed);
    let mut turns: Vec<DQuat> = Vec::with_capacity(b.nodes.len());
    for j in 0..b.nodes.len() {
        let twist = DQuat::from_rotation_x(rng.next_f32() as f64 * std::f64::consts::TAU);
        let dir = b
            .children(j)
            .into_iter()
            .map(|c| b.nodes[c].offset)
            .find(|o| o.length() > 1e-9);
        let node = &b.nodes[j];
        let rotates = node.channels.iter().any(|c| rotation_axis(c).is_some());
        turns.push(match (rotates, dir) {
            // An End Site, or a joint that cannot rotate: it keeps its parent's axes.
            (false, _) => node.parent.map_or(DQuat::IDENTITY, |p| turns[p]),
            (true, Some(d)) => DQuat::from_rotation_arc(DVec3::X, d.normalize()) * twist,
            (true, None) => rng_rotation(&mut rng),
        });
    }
    let root_position = first_root_position(&b);
    retarget_axes(&mut b, DQuat::IDENTITY, &turns);
    b.nodes[0].offset = root_position;
    b.write()
}

/// The same motion with Z up: the world turned +90° about X (so +Y goes to +Z and a figure
/// facing +Z faces −Y, as Blender's axes have it), every offset, root position and rotation
/// with it, so the zero pose is upright along Z too.
pub fn z_up_bvh(bvh: &str) -> String {
    turned_bvh(bvh, DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2))
}

/// The same motion with the whole world turned by `w`: offsets, root positions and
/// rotations with it, so the zero pose turns too.
pub fn turned_bvh(bvh: &str, w: DQuat) -> String {
    let mut b = Bvh::parse(bvh);
    let turns = vec![w.inverse(); b.nodes.len()];
    let root_offset = w * b.nodes[0].offset;
    retarget_axes(&mut b, w, &turns);
    b.nodes[0].offset = root_offset;
    b.write()
}

/// The same file with the root OFFSET at the first frame's root position (hip height), as
/// some exporters write it; a position channel replaces the OFFSET, so the motion is the same.
pub fn root_offset_at_hips(bvh: &str) -> String {
    let mut b = Bvh::parse(bvh);
    b.nodes[0].offset = first_root_position(&b);
    b.write()
}

/// The same motion in another unit: every offset and position channel times `k` (CMU's
/// 1/0.45 inch × 0.056444 is metres, × 5.6444 centimetres).
pub fn bvh_scaled(bvh: &str, k: f64) -> String {
    let mut b = Bvh::parse(bvh);
    let columns = b.columns();
    for n in &mut b.nodes {
        n.offset *= k;
    }
    for f in 0..b.frames.len() {
        for (j, node) in b.nodes.iter().enumerate() {
            for (c, ch) in node.channels.iter().enumerate() {
                if position_axis(ch).is_some() {
                    b.frames[f][columns[j] + c] *= k;
                }
            }
        }
    }
    b.write()
}

fn rng_rotation(rng: &mut Lcg) -> DQuat {
    let q = rng.rotation();
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// The root's position at the first frame (its OFFSET where no channel gives an axis).
fn first_root_position(b: &Bvh) -> DVec3 {
    let root = &b.nodes[0];
    let mut p = root.offset;
    for (k, ch) in root.channels.iter().enumerate() {
        if let Some(axis) = position_axis(ch) {
            p[axis] = b.frames[0][k];
        }
    }
    p
}

/// Rewrites offsets and frames for joint axes turned by `turns` (`world' = world·C_j`) and
/// the whole figure turned by `world` (`world' = W·world`).
fn retarget_axes(b: &mut Bvh, world: DQuat, turns: &[DQuat]) {
    let parent_turn = |b: &Bvh, j: usize| b.nodes[j].parent.map_or(world.inverse(), |p| turns[p]);
    for j in 0..b.nodes.len() {
        let pt = parent_turn(b, j);
        b.nodes[j].offset = pt.inverse() * b.nodes[j].offset;
    }
    let columns = b.columns();
    for f in 0..b.frames.len() {
        for j in 0..b.nodes.len() {
            let pt = parent_turn(b, j);
            let node = b.nodes[j].clone();
            let cols = columns[j]..columns[j] + node.channels.len();
            let frame = &mut b.frames[f][cols];
            rewrite_positions(&node.channels, frame, pt.inverse());
            rewrite_rotation(&node.channels, frame, pt.inverse(), turns[j]);
        }
    }
    unwrap_angles(b, &columns);
}

/// Position channels (a vector like an offset) turned by `by`; all three axes must be there.
fn rewrite_positions(channels: &[String], frame: &mut [f64], by: DQuat) {
    let idx: Vec<(usize, usize)> = channels
        .iter()
        .enumerate()
        .filter_map(|(k, c)| position_axis(c).map(|a| (k, a)))
        .collect();
    if idx.is_empty() {
        return;
    }
    assert_eq!(idx.len(), 3, "a joint with only some position channels");
    let mut p = DVec3::ZERO;
    idx.iter().for_each(|&(k, a)| p[a] = frame[k]);
    let p = by * p;
    idx.iter().for_each(|&(k, a)| frame[k] = p[a]);
}

/// The rotation channels' `L` replaced by `before·L·after`, in the same channel order.
fn rewrite_rotation(channels: &[String], frame: &mut [f64], before: DQuat, after: DQuat) {
    let idx: Vec<(usize, usize)> = channels
        .iter()
        .enumerate()
        .filter_map(|(k, c)| rotation_axis(c).map(|a| (k, a)))
        .collect();
    if idx.is_empty() {
        // (an End Site has no channels and nothing to rewrite)
        assert!(
            (before * after).abs_diff_eq(DQuat::IDENTITY, 1e-9)
                || (before * after).abs_diff_eq(-DQuat::IDENTITY, 1e-9),
            "a joint without rotation channels cannot take a turn"
        );
        return;
    }
    let order: Vec<usize> = idx.iter().map(|&(_, a)| a).collect();
    let angles: Vec<f64> = idx.iter().map(|&(k, _)| frame[k].to_radians()).collect();
    let l = before * euler_to_quat(&order, &angles) * after;
    let new = quat_to_euler(&order, l);
    idx.iter()
        .zip(new)
        .for_each(|(&(k, _), v)| frame[k] = v.to_degrees());
}

fn position_axis(ch: &str) -> Option<usize> {
    axis_of(ch, "position")
}

fn rotation_axis(ch: &str) -> Option<usize> {
    axis_of(ch, "rotation")
}

fn axis_of(ch: &str, kind: &str) -> Option<usize> {
    let lower = ch.to_ascii_lowercase();
    let axis = lower.strip_suffix(kind)?;
    ["x", "y", "z"].iter().position(|a| *a == axis)
}

/// `R = R_a1(θ1)·R_a2(θ2)·R_a3(θ3)` for the axes in channel order (intrinsic).
pub fn euler_to_quat(order: &[usize], radians: &[f64]) -> DQuat {
    order
        .iter()
        .zip(radians)
        .fold(DQuat::IDENTITY, |q, (&a, &r)| {
            q * match a {
                0 => DQuat::from_rotation_x(r),
                1 => DQuat::from_rotation_y(r),
                _ => DQuat::from_rotation_z(r),
            }
        })
}

/// The inverse of `euler_to_quat` for the six orders of three distinct axes.
pub fn quat_to_euler(order: &[usize], q: DQuat) -> Vec<f64> {
    let rot = match order {
        [0, 1, 2] => EulerRot::XYZ,
        [0, 2, 1] => EulerRot::XZY,
        [1, 0, 2] => EulerRot::YXZ,
        [1, 2, 0] => EulerRot::YZX,
        [2, 0, 1] => EulerRot::ZXY,
        [2, 1, 0] => EulerRot::ZYX,
        other => panic!("rotation channel order {other:?} is not three distinct axes"),
    };
    let (a, b, c) = q.to_euler(rot);
    vec![a, b, c]
}

/// Each rotation channel moved by whole turns to the value nearest the previous frame's, so
/// a player that interpolates angles between frames does not spin through ±180°.
fn unwrap_angles(b: &mut Bvh, columns: &[usize]) {
    for (j, node) in b.nodes.iter().enumerate() {
        for (k, ch) in node.channels.iter().enumerate() {
            if rotation_axis(ch).is_none() {
                continue;
            }
            let col = columns[j] + k;
            for f in 1..b.frames.len() {
                let prev = b.frames[f - 1][col];
                let v = &mut b.frames[f][col];
                *v += 360.0 * ((prev - *v) / 360.0).round();
            }
        }
    }
}
