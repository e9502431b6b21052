//! Joint names with the conventions taken out: namespaces (`Character1:`, `mixamorig:`),
//! prefixes (`Model_`, `b_`, `Bip01`), case, separators and the way a side is written
//! (`.L`, `_L`, `Left`, `l_`), so `mixamorig:LeftArm`, `Arm.L` and `arm_l` agree.

/// Left or right, as a name writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    Left,
    Right,
}

/// A name reduced to what it says: its side and its words run together, lower case,
/// numbers without leading zeros (`UpperArm.R` and `upperarm_r` agree).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameKey {
    pub side: Option<Mark>,
    pub stem: String,
}

/// Words that only say where a name came from.
const NOISE: [&str; 10] = [
    "mixamorig",
    "model",
    "b",
    "bip01",
    "bip",
    "def",
    "jnt",
    "bone",
    "skeleton",
    "armature",
];

/// Splits at separators, at lower-to-upper case changes and before the last capital of a
/// run of capitals (`LHipJoint` → `L`, `Hip`, `Joint`); digits stay with their word.
fn tokens(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|k| chars[k]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if p.is_alphanumeric() => {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()))
                    || (p.is_ascii_digit() && c.is_alphabetic() && c.is_uppercase())
            }
            _ => false,
        };
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn side_of(token: &str) -> Option<Mark> {
    match token {
        "l" | "left" | "lf" | "lft" => Some(Mark::Left),
        "r" | "right" | "rt" | "rgt" => Some(Mark::Right),
        _ => None,
    }
}

/// Digits without leading zeros (`01` → `1`), letters lower case.
fn canonical(token: &str) -> String {
    let lower = token.to_lowercase();
    let split = lower
        .char_indices()
        .find(|(_, c)| c.is_ascii_digit())
        .map_or(lower.len(), |(i, _)| i);
    let (letters, digits) = lower.split_at(split);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let n = digits.trim_start_matches('0');
        format!("{letters}{}", if n.is_empty() { "0" } else { n })
    } else {
        lower
    }
}

/// The side and words of one joint name.
fn words(name: &str) -> (Option<Mark>, Vec<String>) {
    // Namespaces and DAG paths: only the last part names the joint.
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    let mut side = None;
    let mut words = Vec::new();
    for t in tokens(base) {
        let c = canonical(&t);
        if let Some(m) = side_of(&c).filter(|_| side.is_none()) {
            side = Some(m);
            continue;
        }
        words.push(c);
    }
    // Leading noise goes when a word is left that is not a number (`b_Hip_01` is `hip1`,
    // but `Bone_1` stays `bone1`).
    let noise = words
        .iter()
        .take_while(|w| NOISE.contains(&w.as_str()))
        .count();
    let meaningful = words[noise..]
        .iter()
        .any(|w| !w.bytes().all(|b| b.is_ascii_digit()));
    if meaningful {
        words.drain(..noise);
    }
    if words.is_empty() {
        words.push(canonical(base));
    }
    (side, words)
}

/// The key of one joint name.
pub fn name_key(name: &str) -> NameKey {
    let (side, words) = words(name);
    NameKey {
        side,
        stem: words.concat(),
    }
}

/// The key without a trailing number (`Torso_1` is `Torso`), if the name has one after a
/// word.
pub fn loose_key(name: &str) -> Option<NameKey> {
    let (side, words) = words(name);
    let (last, rest) = words.split_last()?;
    if rest.is_empty() || !last.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(NameKey {
        side,
        stem: rest.concat(),
    })
}

/// The whole name run together in lower case, its namespace taken out: where a pipeline
/// lower-cased a name (`b_leftupperarm_09`: its side word no longer stands apart) or dropped
/// its separators (`bSpine0102`: its numbers run together), the words cannot be found again,
/// but the same name in another case or without separators is still the same joint.
pub fn flat_key(name: &str) -> NameKey {
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    NameKey {
        side: None,
        stem: base
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) {
        assert_eq!(name_key(a), name_key(b), "{a} vs {b}");
    }

    #[test]
    fn conventions_agree() {
        same("Foot.L", "FootL");
        same("Foot.L", "foot_l");
        same("Foot.L", "L_Foot");
        same("LeftFoot", "mixamorig:LeftFoot");
        same("LeftFoot", "Foot_Left");
        same("Character1:Hips", "Model_Hips");
        same("b_Spine01_02", "Fox:b_Spine01_02");
        same("b_Spine01_02", "spine1_2");
        same("UpperArm.R", "upperarm_r");
        same("lHand", "Hand.L");
        assert_eq!(loose_key("Bone_1"), Some(name_key("Bone")));
    }

    #[test]
    fn different_joints_stay_apart() {
        for (a, b) in [
            ("Foot.L", "Foot.R"),
            ("Spine1", "Spine2"),
            ("b_Spine01_02", "b_Spine02_03"),
            ("LeftUpLeg", "LeftLeg"),
            ("Thumb.L", "Thumb2.L"),
        ] {
            assert_ne!(name_key(a), name_key(b), "{a} vs {b}");
        }
    }

    #[test]
    fn lower_case_and_run_together_names_agree_flat() {
        for (a, b) in [
            ("b_LeftUpperArm_09", "b_leftupperarm_09"),
            ("b_Spine01_02", "bSpine0102"),
            ("b_LeftLeg01_015", "bLeftLeg01015"),
            ("Fox:b_RightFoot02_022", "brightfoot02022"),
        ] {
            assert_ne!(name_key(a), name_key(b), "{a} vs {b}: the words are lost");
            assert_eq!(flat_key(a), flat_key(b), "{a} vs {b}");
        }
        assert_ne!(flat_key("b_Spine01_02"), flat_key("b_Spine02_03"));
        assert_ne!(flat_key("Foot.L"), flat_key("Foot.R"));
    }

    #[test]
    fn a_numbered_copy_loosens_to_its_name() {
        assert_eq!(loose_key("Torso_1"), Some(name_key("Torso")));
        assert_eq!(loose_key("Spine1"), None, "a digit inside a word stays");
        assert_eq!(name_key("CMU LHipJoint").side, Some(Mark::Left));
    }
}
