//! Atomic file writes: a temp file in the destination's folder, flushed and synced, then
//! renamed over the destination, and the folder synced so the rename itself is on disk. A
//! crash, a kill or an error leaves the old file whole; the temp file a killed writer leaves
//! behind is removed by the next write of the same file.

use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes through `fill` into a temp file beside `path`, then renames it into place.
/// Returns the number of bytes written.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<u64> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = temp_prefix(path);
    remove_stale_temps(dir, &prefix);
    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    // Held until the temp file is renamed (or removed): the lock says a writer is alive.
    // A file system without locks only loses the clean-up of temps, not the write.
    try_lock(tmp.as_file());
    let mut counter = CountingWriter {
        inner: BufWriter::new(tmp.as_file()),
        written: 0,
    };
    fill(&mut counter)?;
    counter.flush()?;
    let written = counter.written;
    drop(counter);
    tmp.as_file().sync_all()?;
    keep_permissions(tmp.as_file(), path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)?;
    Ok(written)
}

/// Takes an exclusive advisory lock on `file`, if nobody holds one; released when the file
/// is closed, or when its process dies. (fs4: std's `File::try_lock` is newer than our
/// minimum Rust, 1.85.)
pub fn try_lock(file: &std::fs::File) -> bool {
    fs4::FileExt::try_lock(file).is_ok()
}

const TEMP_SUFFIX: &str = ".part";

/// `.walk.ron.` for `walk.ron`: hidden, and tied to the file it will replace.
fn temp_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.")
}

/// Removes the temp files of `prefix` that no live writer holds: those of a writer killed
/// between creating and renaming its temp file.
fn remove_stale_temps(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(prefix) && name.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        let unheld = std::fs::File::open(entry.path()).is_ok_and(|f| try_lock(&f));
        if unheld {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Makes the rename durable: without it, a power cut may bring back the old directory entry
/// (or none) even though the new file's data was synced.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

/// A temp file is created owner-only (0600); the written file should read like any other:
/// the old file's permissions when replacing one, else 0644.
#[cfg(unix)]
fn keep_permissions(file: &std::fs::File, path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn keep_permissions(_: &std::fs::File, _: &Path) -> io::Result<()> {
    Ok(())
}

struct CountingWriter<W: Write> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("project.ron");
        std::fs::write(&path, "old").unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        let n = write_atomic(&path, |w| w.write_all(b"new contents")).unwrap();
        assert_eq!(n, 12);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let fresh = dir.path().join("fresh.glb");
            write_atomic(&fresh, |w| w.write_all(b"x")).unwrap();
            let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644, "readable by others, like any file");
        }
    }

    #[test]
    fn temps_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("walk.ron");
        let stale = dir.path().join(".walk.ron.a1b2c3.part");
        let live = dir.path().join(".walk.ron.d4e5f6.part");
        let other = dir.path().join(".other.ron.a1b2c3.part");
        for p in [&stale, &live, &other] {
            std::fs::write(p, "half").unwrap();
        }
        let held = std::fs::File::open(&live).unwrap();
        assert!(try_lock(&held));
        write_atomic(&path, |w| w.write_all(b"whole")).unwrap();
        assert!(!stale.exists(), "a killed writer's temp is removed");
        assert!(live.exists(), "a running writer's temp is left alone");
        assert!(
            other.exists(),
            "another file's temps are its own writes' business"
        );
        drop(held);
        write_atomic(&path, |w| w.write_all(b"whole again")).unwrap();
        assert!(!live.exists());
    }
}
