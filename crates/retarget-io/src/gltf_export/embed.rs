//! Images given by URI (a file beside the .gltf or a data: URI) are moved into the GLB's
//! BIN chunk, because a GLB is meant to travel as one file. URIs are decoded here rather
//! than through the `gltf` crate, whose URI reader panics on malformed percent escapes.

use super::bin::Extra;
use crate::error::ExportProblem;
use gltf::json::{Root, image::MimeType};
use std::path::Path;

/// An image's bytes, read before the document is turned into JSON.
pub(super) struct Embedded {
    image: usize,
    bytes: Vec<u8>,
    mime: String,
}

/// Reads every image that has a URI; `base` is the folder of the source file.
pub(super) fn read_images(
    doc: &gltf::Document,
    base: Option<&Path>,
) -> Result<Vec<Embedded>, ExportProblem> {
    let mut out = Vec::new();
    for image in doc.images() {
        let gltf::image::Source::Uri { uri, mime_type } = image.source() else {
            continue;
        };
        let shown = shorten(uri);
        let fail = |why: String| ExportProblem::Source(format!("image {}: {why}", image.index()));
        let (bytes, media) = read_uri(uri, base).map_err(|e| fail(format!("'{shown}': {e}")))?;
        let mime = sniff(&bytes)
            .map(str::to_owned)
            .or(media)
            .or(mime_type.map(str::to_owned))
            .or_else(|| by_extension(uri).map(str::to_owned))
            .ok_or_else(|| fail(format!("'{shown}' is not a PNG, JPEG, WebP or KTX2 image")))?;
        out.push(Embedded {
            image: image.index(),
            bytes,
            mime,
        });
    }
    Ok(out)
}

/// Points each image at a new buffer view of its bytes instead of its URI.
pub(super) fn embed_images(root: &mut Root, extra: &mut Extra, images: Vec<Embedded>) -> usize {
    let count = images.len();
    for e in images {
        let view = extra.push_view(root, &e.bytes, None);
        if let Some(image) = root.images.get_mut(e.image) {
            image.uri = None;
            image.buffer_view = Some(view);
            image.mime_type = Some(MimeType(e.mime));
        }
    }
    count
}

fn shorten(uri: &str) -> String {
    if uri.len() > 60 {
        format!("{}…", uri.chars().take(40).collect::<String>())
    } else {
        uri.to_owned()
    }
}

/// Bytes and (for data: URIs) the declared media type.
fn read_uri(uri: &str, base: Option<&Path>) -> Result<(Vec<u8>, Option<String>), String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, payload) = rest.split_once(',').ok_or("a data: URI without a comma")?;
        let media = header.split(';').next().filter(|m| !m.is_empty());
        let bytes = if header.ends_with(";base64") {
            base64_decode(payload)?
        } else {
            percent_decode(payload)?
        };
        return Ok((bytes, media.map(str::to_owned)));
    }
    let path = if let Some(rest) = uri.strip_prefix("file://") {
        Path::new(rest).to_path_buf()
    } else if uri.contains(':') {
        return Err("only relative paths and data: URIs can be embedded".into());
    } else {
        let decoded = String::from_utf8(percent_decode(uri)?)
            .map_err(|_| "the path is not UTF-8 once its %-escapes are decoded".to_string())?;
        base.unwrap_or(Path::new(".")).join(decoded)
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((bytes, None))
}

fn percent_decode(s: &str) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("a bad %-escape")?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Standard base64 (RFC 4648), padding optional, whitespace ignored.
fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    let value = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = value(c).ok_or("not valid base64")?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// The image type from its first bytes, which is what the validator checks mimeType against.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else if bytes.starts_with(b"\xABKTX 20\xBB\r\n\x1a\n") {
        Some("image/ktx2")
    } else {
        None
    }
}

fn by_extension(uri: &str) -> Option<&'static str> {
    let ext = uri.rsplit('.').next()?.to_ascii_lowercase();
    match ext.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "webp" => Some("image/webp"),
        "ktx2" => Some("image/ktx2"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_and_percent_escapes() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8h").unwrap(), b"hello!");
        assert!(base64_decode("a$b").is_err());
        assert_eq!(percent_decode("a%20b").unwrap(), b"a b");
        assert!(percent_decode("a%2").is_err());
        assert!(percent_decode("a%zz").is_err());
    }

    #[test]
    fn reads_data_uris_with_their_media_type() {
        let (bytes, media) = read_uri("data:image/png;base64,iVBORw0KGgo=", None).unwrap();
        assert_eq!(sniff(&bytes), Some("image/png"));
        assert_eq!(media.as_deref(), Some("image/png"));
        assert!(read_uri("https://example.com/a.png", None).is_err());
    }
}
