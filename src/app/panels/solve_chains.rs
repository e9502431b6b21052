//! The Solve tab's per-chain part: each planted leg's IK switch, pole and own contact
//! thresholds; which limbs reach for their source's end (absolute mode); the IK limits of
//! each leg joint; and each twist bone's share of its limb's roll. Every change is one
//! undoable edit, saved in the project.

use crate::app::command::Command;
use crate::core::HumanBone;
use crate::core::ik::JointLimit;
use crate::core::retarget::Pole;
use crate::session::{Edit, Session};
use eframe::egui;
use glam::Vec3;

/// What the per-chain part shows, found once per document revision (it builds a solver).
#[derive(Clone, Debug, Default)]
pub struct LegsInfo {
    pub revision: u64,
    /// Planted feet, by name.
    pub feet: Vec<String>,
    /// The pelvis-frame forward, for the "forward"/"backward" poles.
    pub forward: Option<Vec3>,
    /// Twist bones and their shares of the limb's roll.
    pub twists: Vec<(String, f32)>,
}

fn legs_info(ui: &egui::Ui, session: &Session, revision: u64) -> LegsInfo {
    let id = egui::Id::unique("solve legs info");
    if let Some(info) = ui.data(|d| d.get_temp::<LegsInfo>(id))
        && info.revision == revision
    {
        return info;
    }
    let (feet, forward) = session.solve_legs().unwrap_or_default();
    let info = LegsInfo {
        revision,
        feet,
        forward,
        twists: session.twist_bones(),
    };
    ui.data_mut(|d| d.insert_temp(id, info.clone()));
    info
}

pub fn chains_ui(ui: &mut egui::Ui, session: &Session, revision: u64, commands: &mut Vec<Command>) {
    let info = legs_info(ui, session, revision);
    egui::CollapsingHeader::new("Legs")
        .default_open(true)
        .show(ui, |ui| {
            if info.feet.is_empty() {
                ui.label("No leg to plant: the map pairs no feet.");
            }
            for foot in &info.feet {
                leg_ui(ui, session, foot, info.forward, commands);
            }
        });
    egui::CollapsingHeader::new("Reach")
        .default_open(false)
        .show(ui, |ui| reach_ui(ui, session, commands));
    egui::CollapsingHeader::new("Twist bones")
        .default_open(false)
        .show(ui, |ui| twists_ui(ui, session, &info.twists, commands));
    egui::CollapsingHeader::new("Joint limits")
        .default_open(false)
        .show(ui, |ui| {
            for foot in &info.feet {
                for joint in session.leg_joints(foot) {
                    limit_ui(ui, session, &joint, commands);
                }
            }
        });
}

/// One leg: IK on or off, its pole, and its own contact thresholds.
fn leg_ui(
    ui: &mut egui::Ui,
    session: &Session,
    foot: &str,
    forward: Option<Vec3>,
    commands: &mut Vec<Command>,
) {
    ui.push_id(foot, |ui| {
        let mut planted = !session.solve.unplanted.iter().any(|f| f == foot);
        ui.horizontal_wrapped(|ui| {
            ui.strong(foot);
            let tip = "Plant this leg on its contacts with IK (off: the frame-by-frame solve)";
            if ui.checkbox(&mut planted, "IK").on_hover_text(tip).changed() {
                commands.push(Command::Edit(Edit::SetLegPlanting {
                    foot: foot.to_owned(),
                    on: planted,
                }));
            }
        });
        let old = session.solve.leg(foot);
        let mut options = old.clone();
        pole_ui(ui, session, foot, &mut options.pole, forward);
        let mut own = options.contacts.is_some();
        let tip = "Contact thresholds for this leg alone, in place of the Solve tab's";
        if ui
            .checkbox(&mut own, "Own contact thresholds")
            .on_hover_text(tip)
            .changed()
        {
            options.contacts = own.then_some(session.solve.settings.contacts);
        }
        if let Some(c) = &mut options.contacts {
            egui::Grid::new("leg contacts")
                .num_columns(2)
                .show(ui, |ui| super::solve::contacts_ui(ui, c));
        }
        if options != old {
            commands.push(Command::Edit(Edit::SetLegOptions(options)));
        }
        ui.add_space(4.0);
    });
}

/// The pole: as solved, forward or backward in the pelvis's frame, or toward a joint.
fn pole_ui(
    ui: &mut egui::Ui,
    session: &Session,
    foot: &str,
    pole: &mut Pole,
    forward: Option<Vec3>,
) {
    let along = |d: Vec3, f: Vec3| d.normalize_or_zero().dot(f) > 0.999;
    let text = match (&*pole, forward) {
        (Pole::Solved, _) => "As solved".to_owned(),
        (Pole::Direction(d), Some(f)) if along(*d, f) => "Forward".to_owned(),
        (Pole::Direction(d), Some(f)) if along(*d, -f) => "Backward".to_owned(),
        (Pole::Direction(d), _) => format!("Direction {:.2} {:.2} {:.2}", d.x, d.y, d.z),
        (Pole::Joint(j), _) => format!("Toward {j}"),
    };
    let leg = session.leg_joints(foot);
    let names = session.target.skeleton().names();
    egui::ComboBox::from_label("Pole")
        .selected_text(text)
        .height(320.0)
        .show_ui(ui, |ui| {
            ui.selectable_value(pole, Pole::Solved, "As solved")
                .on_hover_text("The knee stays in the plane the source's motion bends it in");
            if let Some(f) = forward {
                ui.selectable_value(pole, Pole::Direction(f), "Forward");
                ui.selectable_value(pole, Pole::Direction(-f), "Backward");
            }
            ui.separator();
            for name in names.iter().filter(|n| !leg.contains(n)) {
                let label = format!("Toward {name}");
                ui.selectable_value(pole, Pole::Joint(name.clone()), label);
            }
        })
        .response
        .on_hover_text("Which way IK bends this leg's knee where it plants the foot");
}

/// A checkbox per limb: solve it to reach its source's end, scaled to the target.
fn reach_ui(ui: &mut egui::Ui, session: &Session, commands: &mut Vec<Command>) {
    let chains = &session.target.chains;
    let names = session.target.skeleton().names();
    let labels = chains.names();
    let limbs = chains
        .chains
        .iter()
        .zip(&labels)
        .filter(|(c, _)| c.kind == crate::core::chains::ChainKind::Limb);
    for (chain, label) in limbs {
        let end = &names[chain.end()];
        let mut on = session.solve.reach.contains(end);
        let text = format!("{label} ({end})");
        let tip = "Solve this limb every frame so its end lands where the source's end is, \
                   from the hips and scaled to the target (absolute mode)";
        if ui.checkbox(&mut on, text).on_hover_text(tip).changed() {
            commands.push(Command::Edit(Edit::SetReach {
                joint: end.clone(),
                on,
            }));
        }
    }
}

/// Each twist bone's share of its limb's roll: by its place along the limb, or set here.
fn twists_ui(
    ui: &mut egui::Ui,
    session: &Session,
    twists: &[(String, f32)],
    commands: &mut Vec<Command>,
) {
    if twists.is_empty() {
        ui.label("No twist bones: no joint sits inside an arm or leg bone.");
    }
    for (joint, weight) in twists {
        let set = session.solve.twists.iter().any(|(j, _)| j == joint);
        ui.push_id(joint, |ui| {
            ui.horizontal_wrapped(|ui| {
                let mut w = *weight;
                let tip = "How much of the next joint's roll this bone takes: 0 keeps the \
                           roll where the limb starts, 1 turns with the next joint";
                let slider = egui::Slider::new(&mut w, 0.0..=1.0).text(joint.as_str());
                if ui.add(slider).on_hover_text(tip).changed() {
                    commands.push(set_twist(joint, Some(w)));
                }
                if set && ui.small_button("By place").clicked() {
                    commands.push(set_twist(joint, None));
                }
            });
        });
    }
}

fn set_twist(joint: &str, weight: Option<f32>) -> Command {
    Command::Edit(Edit::SetTwistWeight {
        joint: joint.to_owned(),
        weight,
    })
}

/// One joint's IK limit: the humanoid default, none, or cone and twist set here.
fn limit_ui(ui: &mut egui::Ui, session: &Session, joint: &str, commands: &mut Vec<Command>) {
    let set = session
        .solve
        .limits
        .iter()
        .find(|(j, _)| j == joint)
        .map(|(_, l)| *l);
    let default = default_limit(session, joint);
    let current = set.unwrap_or(default);
    ui.push_id(joint, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.label(joint);
            let mut limited = current.is_some();
            if ui.checkbox(&mut limited, "limited").changed() {
                let limit = limited.then(|| default.unwrap_or(JointLimit::new(90.0, 30.0)));
                commands.push(set_limit(joint, Some(limit)));
            }
            if set.is_some() && ui.small_button("Default").clicked() {
                commands.push(set_limit(joint, None));
            }
        });
        let Some(mut limit) = current else { return };
        ui.horizontal_wrapped(|ui| {
            let fields = [
                (&mut limit.cone_deg, "cone", 0.0..=180.0),
                (&mut limit.twist_min_deg, "twist min", -180.0..=0.0),
                (&mut limit.twist_max_deg, "twist max", 0.0..=180.0),
            ];
            for (value, label, range) in fields {
                let field = egui::DragValue::new(value).range(range).suffix("°");
                super::labelled(ui, label, field);
            }
        });
        if Some(limit) != current {
            commands.push(set_limit(joint, Some(Some(limit))));
        }
    });
}

fn set_limit(joint: &str, limit: Option<Option<JointLimit>>) -> Command {
    Command::Edit(Edit::SetJointLimit {
        joint: joint.to_owned(),
        limit,
    })
}

/// The humanoid profile's limit of `joint` (by its map label), if any.
fn default_limit(session: &Session, joint: &str) -> Option<JointLimit> {
    let j = session.target.skeleton().find(joint)?;
    let bone: HumanBone = session.map.for_target(j)?.bone?;
    JointLimit::humanoid_default(bone)
}
