//! Atomic file writes: a temp file in the destination's folder, flushed and synced, then
//! renamed over the destination. A crash or an error leaves the old file whole.

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
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
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
    Ok(written)
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
}
