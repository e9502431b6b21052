//! The project file: RON, versioned, paths relative to the project file, joints by name (so
//! a project survives re-exports of the same character that reorder its nodes).

pub use crate::solve_edits::SolveEdits;
use glam::Quat;
use retarget_core::chains::{ChainKind, Tags};
use retarget_core::{
    Axis, ContainerEdit, HumanBone, MapMethod, PoseSource, RotationMode, TranslationMode, Unit,
};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// 2: the solve edits in one `solve` struct ([`SolveEdits`]); 1 had them beside the map.
pub const PROJECT_VERSION: u32 = 2;

/// A bone map file's version (its layout has not changed since the first).
pub const MAP_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct ProjectError {
    pub path: PathBuf,
    pub problem: ProjectProblem,
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectProblem {
    #[error("cannot read the project: {}", crate::error::io_words(.0))]
    Read(#[source] std::io::Error),
    #[error("cannot write the project: {}", crate::error::io_words(.0))]
    Write(#[source] std::io::Error),
    #[error("not a valid project file: {0}")]
    Parse(String),
    #[error("version {found} is newer than this Retarget Studio understands ({understood})")]
    TooNew { found: u32, understood: u32 },
    #[error("cannot serialise the project: {0}")]
    Serialise(String),
}

/// One side (source or target) of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideFile {
    /// Relative to the project file's folder when saved.
    pub path: PathBuf,
    /// The clip to retarget (source side); `None` means the first.
    #[serde(default)]
    pub clip: Option<String>,
    #[serde(default)]
    pub reference: PoseSource,
    #[serde(default)]
    pub container: ContainerEdit,
    /// Per-bone rotation offsets in the parent's space, by joint name.
    #[serde(default)]
    pub bone_offsets: Vec<(String, Quat)>,
    /// BVH unit and up axis forced on import.
    #[serde(default)]
    pub unit: Option<Unit>,
    #[serde(default)]
    pub up: Option<Axis>,
    /// The rig's chain skeleton (`core::chains`) as the user left it; `None` builds it
    /// automatically on load.
    #[serde(default)]
    pub chains: Option<Vec<ChainFile>>,
    /// Which joints are taken as the body: the skin's (the default) or every joint.
    #[serde(default)]
    pub body: BodyJoints,
}

/// Which joints a side's labels, chains and automatic map take as the body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BodyJoints {
    /// The joints the skin deforms with, without controls (`core::deform`): a rig's IK
    /// controls and helpers stay out of the body.
    #[default]
    Skin,
    /// Every joint, whatever the skin says: a skin bound to a few joints (Unity's Starter
    /// Assets armature weighted on 4) must not make helpers of the limbs.
    All,
}

/// One bone chain, joints by name from the chain's start to its end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainFile {
    pub kind: ChainKind,
    pub joints: Vec<String>,
    #[serde(default)]
    pub tags: Tags,
}

impl SideFile {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            clip: None,
            reference: PoseSource::Bind,
            container: ContainerEdit::default(),
            bone_offsets: Vec::new(),
            unit: None,
            up: None,
            chains: None,
            body: BodyJoints::Skin,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairFile {
    pub source: String,
    pub target: String,
    #[serde(default)]
    pub bone: Option<HumanBone>,
    #[serde(default)]
    pub rotation: RotationMode,
    #[serde(default)]
    pub translation: TranslationMode,
    #[serde(default)]
    pub method: MapMethod,
    #[serde(default = "one")]
    pub confidence: f32,
}

fn one() -> f32 {
    1.0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExportSettings {
    /// Output frame rate; `None` is the source clip's rate.
    #[serde(default)]
    pub fps: Option<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectFile {
    pub version: u32,
    pub source: SideFile,
    pub target: SideFile,
    #[serde(default)]
    pub map: Vec<PairFile>,
    #[serde(default)]
    pub export: ExportSettings,
    /// How the pair is solved, as the user set it.
    #[serde(default)]
    pub solve: SolveEdits,
    /// Which target weight a source curve drives, where the user chose (the rest match by
    /// name).
    #[serde(default)]
    pub curves: Vec<retarget_core::curve_map::CurvePair>,
    /// Whether the target's hands were lined up with the source's when it was saved:
    /// projects saved before fingers were lined up have not, and are on opening.
    #[serde(default)]
    pub hands_aligned: bool,
}

/// Version 1's layout, read to migrate: the solve edits beside the map, one field each.
#[derive(Deserialize)]
struct ProjectFileV1 {
    source: SideFile,
    target: SideFile,
    #[serde(default)]
    map: Vec<PairFile>,
    #[serde(default)]
    export: ExportSettings,
    #[serde(default)]
    solve: retarget_core::retarget::SolveSettings,
    #[serde(default)]
    reach: Vec<String>,
    #[serde(default)]
    unplanted: Vec<String>,
    #[serde(default)]
    limits: Vec<(String, Option<retarget_core::ik::JointLimit>)>,
    #[serde(default)]
    twists: Vec<(String, f32)>,
    #[serde(default)]
    legs: Vec<retarget_core::retarget::LegOptions>,
    #[serde(default)]
    contact_spans: Vec<retarget_core::retarget::ContactSpans>,
}

impl From<ProjectFileV1> for ProjectFile {
    fn from(v1: ProjectFileV1) -> Self {
        ProjectFile {
            version: PROJECT_VERSION,
            source: v1.source,
            target: v1.target,
            map: v1.map,
            export: v1.export,
            solve: SolveEdits {
                settings: v1.solve,
                reach: v1.reach,
                unplanted: v1.unplanted,
                limits: v1.limits,
                twists: v1.twists,
                legs: v1.legs,
                contact_spans: v1.contact_spans,
                strides: Vec::new(),
                hand_spans: Vec::new(),
            },
            curves: Vec::new(),
            hands_aligned: false,
        }
    }
}

impl ProjectFile {
    /// A project of two files with nothing mapped or edited yet.
    pub fn of_sides(source: SideFile, target: SideFile) -> Self {
        Self {
            version: PROJECT_VERSION,
            source,
            target,
            map: Vec::new(),
            export: Default::default(),
            solve: SolveEdits::default(),
            curves: Vec::new(),
            hands_aligned: false,
        }
    }

    /// Reads a project; its side paths come back absolute (resolved against its folder).
    pub fn load(path: &Path) -> Result<Self, ProjectError> {
        let err = |problem| ProjectError {
            path: path.to_path_buf(),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(ProjectProblem::Read(e)))?;
        Self::parse(&text, path.parent().unwrap_or(Path::new("."))).map_err(err)
    }

    pub fn parse(text: &str, base: &Path) -> Result<Self, ProjectProblem> {
        #[derive(Deserialize)]
        struct VersionOnly {
            version: u32,
        }
        // With ron's recursion limit: a file of 100,000 open brackets must be an error, not
        // a stack overflow.
        let version = ron::Options::default()
            .from_str::<ron::Value>(text)
            .ok()
            .and_then(|v| v.into_rust::<VersionOnly>().ok())
            .map(|v| v.version);
        if let Some(found) = version
            && found > PROJECT_VERSION
        {
            return Err(ProjectProblem::TooNew {
                found,
                understood: PROJECT_VERSION,
            });
        }
        let parse = |e: ron::error::SpannedError| ProjectProblem::Parse(e.to_string());
        let mut project: ProjectFile = match version {
            Some(1) => ron::from_str::<ProjectFileV1>(text).map_err(parse)?.into(),
            _ => ron::from_str(text).map_err(parse)?,
        };
        project.version = PROJECT_VERSION;
        for side in [&mut project.source, &mut project.target] {
            if side.path.is_relative() {
                side.path = base.join(&side.path);
            }
        }
        Ok(project)
    }

    /// Writes atomically, with side paths made relative to the project's folder.
    pub fn save(&self, path: &Path) -> Result<u64, ProjectError> {
        let err = |problem| ProjectError {
            path: path.to_path_buf(),
            problem,
        };
        let text = self
            .to_ron(path.parent().unwrap_or(Path::new(".")))
            .map_err(err)?;
        super::atomic::write_atomic(path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| err(ProjectProblem::Write(e)))
    }

    pub fn to_ron(&self, base: &Path) -> Result<String, ProjectProblem> {
        let mut copy = self.clone();
        for side in [&mut copy.source, &mut copy.target] {
            side.path = relative_path(&side.path, base);
        }
        let config = ron::ser::PrettyConfig::new().depth_limit(4);
        ron::ser::to_string_pretty(&copy, config)
            .map_err(|e| ProjectProblem::Serialise(e.to_string()))
    }
}

/// A bone map on its own, so that a map made for one character of a rig family serves the
/// next: joints by name, no file paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapFile {
    pub version: u32,
    pub pairs: Vec<PairFile>,
}

impl MapFile {
    pub fn load(path: &Path) -> Result<Self, ProjectError> {
        let err = |problem| ProjectError {
            path: path.to_path_buf(),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(ProjectProblem::Read(e)))?;
        let map: MapFile =
            ron::from_str(&text).map_err(|e| err(ProjectProblem::Parse(e.to_string())))?;
        if map.version > MAP_VERSION {
            return Err(err(ProjectProblem::TooNew {
                found: map.version,
                understood: MAP_VERSION,
            }));
        }
        Ok(map)
    }

    pub fn save(&self, path: &Path) -> Result<u64, ProjectError> {
        let err = |problem| ProjectError {
            path: path.to_path_buf(),
            problem,
        };
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new().depth_limit(3))
            .map_err(|e| err(ProjectProblem::Serialise(e.to_string())))?;
        super::atomic::write_atomic(path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| err(ProjectProblem::Write(e)))
    }
}

/// `path` relative to `base` where both are absolute (or both relative); `../` as needed.
pub fn relative_path(path: &Path, base: &Path) -> PathBuf {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path, base) = (abs(path), abs(base));
    let p: Vec<_> = path.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ProjectFile {
        let source = SideFile {
            clip: Some("walk".into()),
            bone_offsets: vec![("LeftArm".into(), Quat::from_rotation_z(0.5))],
            unit: Some(Unit::CmuAsf),
            ..SideFile::new("/data/mocap/walk.bvh")
        };
        let target = SideFile {
            container: ContainerEdit {
                scale: 2.0,
                ..Default::default()
            },
            ..SideFile::new("/data/chars/robot.glb")
        };
        ProjectFile {
            map: vec![PairFile {
                source: "Hips".into(),
                target: "Hips".into(),
                bone: Some(HumanBone::Hips),
                rotation: RotationMode::RestRelative,
                translation: TranslationMode::HipsScaled,
                method: MapMethod::Name,
                confidence: 0.9,
            }],
            export: ExportSettings { fps: Some(30.0) },
            ..ProjectFile::of_sides(source, target)
        }
    }

    #[test]
    fn round_trips_with_relative_paths() {
        let p = sample();
        let text = p.to_ron(Path::new("/data/projects")).unwrap();
        assert!(text.contains("../mocap/walk.bvh"), "{text}");
        assert!(text.contains("version: 2"), "{text}");
        let back = ProjectFile::parse(&text, Path::new("/data/projects")).unwrap();
        assert_eq!(
            back.source.path,
            Path::new("/data/projects/../mocap/walk.bvh")
        );
        assert_eq!(back.map, p.map);
        assert_eq!(back.target.container, p.target.container);
        assert_eq!(back.source.bone_offsets, p.source.bone_offsets);
    }

    #[test]
    fn newer_versions_and_garbage_are_refused_clearly() {
        let text = sample()
            .to_ron(Path::new("/data"))
            .unwrap()
            .replace("version: 2", "version: 7");
        assert!(matches!(
            ProjectFile::parse(&text, Path::new("/")),
            Err(ProjectProblem::TooNew { found: 7, .. })
        ));
        let e = ProjectFile::parse("(version: 1, source: ", Path::new("/")).unwrap_err();
        assert!(matches!(e, ProjectProblem::Parse(_)), "{e}");
    }

    /// A project saved by version 1, with every solve edit set.
    const VERSION_1: &str = r#"(
        version: 1,
        source: (path: "walk.bvh", clip: Some("walk")),
        target: (path: "robot.glb"),
        map: [(source: "Hips", target: "pelvis")],
        export: (fps: Some(24.0)),
        solve: (plant_feet: false, blend_secs: 0.5, mirror: true),
        reach: ["hand_l"],
        unplanted: ["foot_r"],
        limits: [("calf_l", Some((cone_deg: 30.0, twist_min_deg: -10.0, twist_max_deg: 5.0))), ("calf_r", None)],
        twists: [("lowerarm_twist_01_l", 0.25)],
        legs: [(foot: "foot_l", contacts: None)],
        contact_spans: [(clip: "walk", foot: "foot_l", spans: [(0.0, 0.5), (1.0, 1.25)])],
    )"#;

    #[test]
    fn version_1_projects_migrate_with_every_solve_edit() {
        let p = ProjectFile::parse(VERSION_1, Path::new("/x")).unwrap();
        assert_eq!(p.version, PROJECT_VERSION);
        assert_eq!((p.map.len(), p.export.fps), (1, Some(24.0)));
        assert_eq!(p.source.clip.as_deref(), Some("walk"));
        let s = &p.solve;
        assert!(!s.settings.plant_feet && s.settings.mirror);
        assert_eq!(s.settings.blend_secs, 0.5);
        assert_eq!(s.reach, ["hand_l"]);
        assert_eq!(s.unplanted, ["foot_r"]);
        let limit = retarget_core::ik::JointLimit {
            cone_deg: 30.0,
            twist_min_deg: -10.0,
            twist_max_deg: 5.0,
        };
        assert_eq!(
            s.limits,
            [
                ("calf_l".to_owned(), Some(limit)),
                ("calf_r".to_owned(), None)
            ]
        );
        assert_eq!(s.twists, [("lowerarm_twist_01_l".to_owned(), 0.25)]);
        assert_eq!(s.legs, [retarget_core::retarget::LegOptions::new("foot_l")]);
        assert_eq!(s.contact_spans[0].spans, [(0.0, 0.5), (1.0, 1.25)]);
        assert!(s.hand_spans.is_empty(), "no hand contacts drawn then");
        // Saved again, it is version 2 and reads back the same.
        let text = p.to_ron(Path::new("/x")).unwrap();
        assert!(text.contains("version: 2"), "{text}");
        assert_eq!(ProjectFile::parse(&text, Path::new("/x")).unwrap(), p);
    }

    #[test]
    fn map_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixamo.map.ron");
        let map = MapFile {
            version: MAP_VERSION,
            pairs: sample().map,
        };
        map.save(&path).unwrap();
        assert_eq!(MapFile::load(&path).unwrap(), map);
        std::fs::write(&path, "(version: 1, pairs: [(source: ").unwrap();
        assert!(
            MapFile::load(&path)
                .unwrap_err()
                .to_string()
                .contains("mixamo.map.ron")
        );
    }

    #[test]
    fn minimal_project_uses_defaults() {
        let p = ProjectFile::parse(
            r#"(version: 1, source: (path: "a.bvh"), target: (path: "b.glb"))"#,
            Path::new("/x"),
        )
        .unwrap();
        assert_eq!(p.source.reference, PoseSource::Bind);
        assert!(p.map.is_empty());
        assert_eq!(p.target.path, Path::new("/x/b.glb"));
    }

    #[test]
    fn save_is_atomic_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.ron");
        let mut p = sample();
        p.source.path = dir.path().join("walk.bvh");
        p.save(&path).unwrap();
        let back = ProjectFile::load(&path).unwrap();
        assert_eq!(back.source.path, dir.path().join("walk.bvh"));
        let missing = ProjectFile::load(&dir.path().join("nope.ron")).unwrap_err();
        assert!(missing.to_string().contains("nope.ron"));
    }
}
