//! The end of a batch: a table with a row per output (source, clip, target, frames, time,
//! quality), the totals, then every failure in words, as text or JSON.

use super::plan::Failure;
use super::work::{Made, Outcome, Quality, Row, Setup};
use crate::cli::progress::file_name;
use serde::Serialize;
use std::collections::HashSet;
use std::fmt::Write as _;

pub struct Summary {
    pub rows: Vec<Row>,
    /// Input files that could not be read (or had no clip).
    pub bad_files: Vec<Failure>,
    /// Pairs where the project did not fit.
    pub notes: Vec<String>,
    pub sources: usize,
    pub targets: usize,
    pub threads: usize,
    pub seconds: f64,
    pub interrupted: bool,
    /// The slice of the outputs this run made, when it made one.
    pub shard: Option<super::plan::Shard>,
}

#[derive(Serialize, Default)]
pub struct Totals {
    pub files_written: usize,
    /// Distinct source clips retargeted at least once.
    pub clips: usize,
    pub outputs_failed: usize,
    pub not_started: usize,
    pub bad_files: usize,
    pub quality_failed: usize,
    pub seconds: f64,
    /// Time spent on outputs, summed over threads.
    pub work_seconds: f64,
    pub interrupted: bool,
}

impl Summary {
    fn made(&self) -> impl Iterator<Item = (&Row, &Made)> {
        self.rows.iter().filter_map(|r| match &r.outcome {
            Outcome::Made(m) => Some((r, m)),
            _ => None,
        })
    }

    pub fn totals(&self) -> Totals {
        let count = |f: fn(&Outcome) -> bool| self.rows.iter().filter(|r| f(&r.outcome)).count();
        let clips: HashSet<_> = self.made().map(|(r, _)| (&r.source, &r.clip)).collect();
        Totals {
            files_written: self.made().count(),
            clips: clips.len(),
            outputs_failed: count(|o| matches!(o, Outcome::Failed(_))),
            not_started: count(|o| matches!(o, Outcome::NotStarted)),
            bad_files: self.bad_files.len(),
            quality_failed: self
                .made()
                .filter(|(_, m)| matches!(m.quality, Quality::Fail { .. }))
                .count(),
            seconds: self.seconds,
            // A fold from +0: an empty `sum` of floats is -0, which prints as "-0.00 s".
            work_seconds: self.made().map(|(_, m)| m.seconds).fold(0.0, |a, b| a + b),
            interrupted: self.interrupted,
        }
    }

    /// Whether anything failed: a bad file or an output not made.
    pub fn any_failed(&self) -> bool {
        let t = self.totals();
        t.bad_files + t.outputs_failed > 0
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let header = [
            "output", "source", "clip", "target", "frames", "time", "quality",
        ];
        let rows: Vec<[String; 7]> = self.made().map(|(r, m)| table_row(r, m)).collect();
        write_table(&mut s, &header, &rows);
        let t = self.totals();
        let _ = writeln!(
            s,
            "{} file(s) written: {} clip(s) of {} source(s) onto {} target(s), in {:.2} s \
             ({:.2} s of work on {} thread(s)); {} fail a quality threshold",
            t.files_written,
            t.clips,
            self.sources,
            self.targets,
            t.seconds,
            t.work_seconds,
            self.threads,
            t.quality_failed
        );
        if let Some(shard) = self.shard {
            let _ = writeln!(s, "shard {}/{} of the run's outputs", shard.k, shard.n);
        }
        for note in &self.notes {
            let _ = writeln!(s, "note: {note}");
        }
        for (r, m) in self.made() {
            match &m.quality {
                Quality::NotJudged(why) => {
                    let _ = writeln!(s, "note: {}: quality not judged: {why}", file_name(&r.out));
                }
                Quality::Fail { flags, .. } => {
                    for flag in flags {
                        let _ = writeln!(s, "quality: {}: {flag}", file_name(&r.out));
                    }
                }
                Quality::Pass => {}
            }
        }
        self.failures_text(&mut s, &t);
        s
    }

    fn failures_text(&self, s: &mut String, t: &Totals) {
        if t.bad_files + t.outputs_failed > 0 {
            let _ = writeln!(s, "failed ({}):", t.bad_files + t.outputs_failed);
        }
        for f in &self.bad_files {
            // Import errors name their file already.
            let file = f.file.display().to_string();
            if f.error.contains(&file) {
                let _ = writeln!(s, "  {}", f.error);
            } else {
                let _ = writeln!(s, "  {file}: {}", f.error);
            }
        }
        for r in &self.rows {
            if let Outcome::Failed(e) = &r.outcome {
                let _ = writeln!(s, "  {} not written: {e}", r.out.display());
            }
        }
        if t.interrupted {
            let _ = writeln!(
                s,
                "interrupted: the {} file(s) above are whole; {} output(s) were not started",
                t.files_written, t.not_started
            );
        }
    }

    pub fn to_json(&self) -> String {
        let outputs: Vec<JsonRow> = self.rows.iter().map(JsonRow::of).collect();
        let json = serde_json::json!({
            "outputs": outputs,
            "bad_files": self.bad_files,
            "notes": self.notes,
            "totals": self.totals(),
            "shard": self.shard,
        });
        serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
    }
}

fn table_row(r: &Row, m: &Made) -> [String; 7] {
    let quality = match &m.quality {
        Quality::Pass => "PASS".to_owned(),
        Quality::Fail { measures, .. } => format!("FAIL {}", measures.join(", ")),
        Quality::NotJudged(_) => "not judged".to_owned(),
    };
    let setup = match r.setup {
        Setup::Project => " (project)",
        Setup::Automatic => "",
    };
    [
        file_name(&r.out),
        file_name(&r.source),
        r.clip.clone(),
        format!("{}{setup}", file_name(&r.target)),
        m.frames.to_string(),
        format!("{:.2} s", m.seconds),
        quality,
    ]
}

/// Columns padded to their widest cell; numbers (frames, time) aligned right.
fn write_table(s: &mut String, header: &[&str; 7], rows: &[[String; 7]]) {
    let mut width = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |s: &mut String, cells: [&str; 7]| {
        let mut out = String::new();
        for (k, cell) in cells.iter().enumerate() {
            let pad = width[k].saturating_sub(cell.chars().count());
            if k == 4 || k == 5 {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                if k < 6 {
                    out.push_str(&" ".repeat(pad));
                }
            }
            if k < 6 {
                out.push_str("  ");
            }
        }
        let _ = writeln!(s, "{}", out.trim_end());
    };
    line(s, *header);
    for row in rows {
        line(s, row.each_ref().map(String::as_str));
    }
}

#[derive(Serialize)]
struct JsonRow {
    file: String,
    source: String,
    clip: String,
    target: String,
    setup: Setup,
    /// written, failed or not_started.
    status: &'static str,
    frames: Option<usize>,
    seconds: Option<f64>,
    bytes: Option<u64>,
    /// Whether every measure kept its limit; `None` when not written or not judged.
    quality_passed: Option<bool>,
    failing_measures: Vec<String>,
    quality_flags: Vec<String>,
    quality_note: Option<String>,
    error: Option<String>,
}

impl JsonRow {
    fn of(r: &Row) -> Self {
        let mut row = JsonRow {
            file: r.out.display().to_string(),
            source: r.source.display().to_string(),
            clip: r.clip.clone(),
            target: r.target.display().to_string(),
            setup: r.setup,
            status: "not_started",
            frames: None,
            seconds: None,
            bytes: None,
            quality_passed: None,
            failing_measures: Vec::new(),
            quality_flags: Vec::new(),
            quality_note: None,
            error: None,
        };
        match &r.outcome {
            Outcome::NotStarted => {}
            Outcome::Failed(e) => {
                row.status = "failed";
                row.error = Some(e.clone());
            }
            Outcome::Made(m) => {
                row.status = "written";
                row.frames = Some(m.frames);
                row.seconds = Some(m.seconds);
                row.bytes = Some(m.bytes);
                match &m.quality {
                    Quality::Pass => row.quality_passed = Some(true),
                    Quality::Fail { measures, flags } => {
                        row.quality_passed = Some(false);
                        row.failing_measures = measures.clone();
                        row.quality_flags = flags.clone();
                    }
                    Quality::NotJudged(why) => row.quality_note = Some(why.clone()),
                }
            }
        }
        row
    }
}
