//! `EXT_meshopt_compression`: each compressed buffer view is decoded with meshoptimizer (the
//! `meshopt` crate, the extension's reference decoder) into the bytes its view describes,
//! filters included, so accessors over it read as if the file had never been compressed.

use super::{MESHOPT, fail};
use crate::error::Problem;
use gltf::json::Root;
use serde_json::Value;
use std::os::raw::c_void;

/// The most bytes one view may decode to: a header cannot make the reader allocate more.
const MAX_VIEW_BYTES: usize = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
}

/// A view's `EXT_meshopt_compression` object.
#[derive(Debug, PartialEq)]
struct Compressed {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

fn parse(what: &str, ext: &Value) -> Result<Compressed, Problem> {
    let number = |key: &str, default: Option<usize>| match ext.get(key) {
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| fail(MESHOPT, what, format!("'{key}' is not a whole number"))),
        None => default.ok_or_else(|| fail(MESHOPT, what, format!("'{key}' is missing"))),
    };
    let mode = match ext.get("mode").and_then(Value::as_str) {
        Some("ATTRIBUTES") => Mode::Attributes,
        Some("TRIANGLES") => Mode::Triangles,
        Some("INDICES") => Mode::Indices,
        other => {
            return Err(fail(
                MESHOPT,
                what,
                format!("mode {other:?} is none of ATTRIBUTES, TRIANGLES, INDICES"),
            ));
        }
    };
    let filter = match ext.get("filter").and_then(Value::as_str) {
        None | Some("NONE") => Filter::None,
        Some("OCTAHEDRAL") => Filter::Octahedral,
        Some("QUATERNION") => Filter::Quaternion,
        Some("EXPONENTIAL") => Filter::Exponential,
        Some(other) => {
            return Err(fail(MESHOPT, what, format!("unknown filter '{other}'")));
        }
    };
    Ok(Compressed {
        buffer: number("buffer", None)?,
        offset: number("byteOffset", Some(0))?,
        length: number("byteLength", None)?,
        stride: number("byteStride", None)?,
        count: number("count", None)?,
        mode,
        filter,
    })
}

/// Decodes every compressed view into the buffer range the view itself names (usually in a
/// fallback buffer that holds no bytes of its own), and takes the extension off the view.
pub(super) fn decode_views(
    root: &mut Root,
    buffers: &mut [gltf::buffer::Data],
) -> Result<(), Problem> {
    for (i, view) in root.buffer_views.iter_mut().enumerate() {
        let Some(ext) = view
            .extensions
            .as_mut()
            .and_then(|e| e.others.remove(MESHOPT))
        else {
            continue;
        };
        if view
            .extensions
            .as_ref()
            .is_some_and(|e| e.others.is_empty())
        {
            view.extensions = None;
        }
        let what = format!("buffer view {i}");
        let c = parse(&what, &ext)?;
        let source = c
            .offset
            .checked_add(c.length)
            .and_then(|end| buffers.get(c.buffer)?.0.get(c.offset..end))
            .ok_or_else(|| {
                fail(
                    MESHOPT,
                    &what,
                    format!(
                        "its compressed bytes ({} from byte {} of buffer {}) lie outside the buffer",
                        c.length, c.offset, c.buffer
                    ),
                )
            })?;
        let decoded = decode(&c, source).map_err(|reason| fail(MESHOPT, &what, reason))?;
        let at = view.byte_offset.map_or(0, |o| o.0 as usize);
        let target = view.buffer.value();
        let room = view.byte_length.0 as usize;
        let dest = at
            .checked_add(decoded.len())
            .filter(|_| decoded.len() <= room)
            .and_then(|end| buffers.get_mut(target)?.0.get_mut(at..end))
            .ok_or_else(|| {
                fail(
                    MESHOPT,
                    &what,
                    format!(
                        "{} decoded bytes do not fit the view ({room} bytes from byte {at} of \
                         buffer {target})",
                        decoded.len()
                    ),
                )
            })?;
        dest.copy_from_slice(&decoded);
    }
    Ok(())
}

/// The view's bytes: `count` elements of `stride` bytes, filters undone. Every size the C
/// decoder asserts on is checked first, so that a lying file gets an error, not an abort.
fn decode(c: &Compressed, source: &[u8]) -> Result<Vec<u8>, String> {
    let size = c
        .count
        .checked_mul(c.stride)
        .filter(|&n| n <= MAX_VIEW_BYTES)
        .ok_or_else(|| {
            format!(
                "{} elements of {} bytes are more than this reader decodes ({MAX_VIEW_BYTES} bytes)",
                c.count, c.stride
            )
        })?;
    let stride_ok = match c.mode {
        Mode::Attributes => c.stride % 4 == 0 && (4..=256).contains(&c.stride),
        Mode::Triangles | Mode::Indices => c.stride == 2 || c.stride == 4,
    };
    if !stride_ok {
        return Err(format!(
            "a byteStride of {} is not allowed in mode {:?}",
            c.stride, c.mode
        ));
    }
    if c.mode == Mode::Triangles && c.count % 3 != 0 {
        return Err(format!("{} indices do not make whole triangles", c.count));
    }
    // Four-byte aligned scratch: the filters read 16- and 32-bit words.
    let mut words = vec![0u32; size.div_ceil(4)];
    if c.count > 0 {
        let dest = words.as_mut_ptr().cast::<c_void>();
        let (src, len) = (source.as_ptr(), source.len());
        // SAFETY: `dest` holds at least `count * stride` bytes (checked above) and the sizes
        // passed are those the decoder accepts; it reads at most `len` bytes of `src`.
        let code = unsafe {
            match c.mode {
                Mode::Attributes => {
                    meshopt::ffi::meshopt_decodeVertexBuffer(dest, c.count, c.stride, src, len)
                }
                Mode::Triangles => {
                    meshopt::ffi::meshopt_decodeIndexBuffer(dest, c.count, c.stride, src, len)
                }
                Mode::Indices => {
                    meshopt::ffi::meshopt_decodeIndexSequence(dest, c.count, c.stride, src, len)
                }
            }
        };
        if code != 0 {
            return Err(format!(
                "the compressed data does not decode (meshoptimizer error {code})"
            ));
        }
        unfilter(c, &mut words)?;
    }
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    bytes.truncate(size);
    Ok(bytes)
}

/// Undoes the view's filter in place.
fn unfilter(c: &Compressed, words: &mut [u32]) -> Result<(), String> {
    let allowed = match c.filter {
        Filter::None => return Ok(()),
        Filter::Octahedral => c.stride == 4 || c.stride == 8,
        Filter::Quaternion => c.stride == 8,
        Filter::Exponential => c.stride % 4 == 0,
    };
    if c.mode != Mode::Attributes || !allowed {
        return Err(format!(
            "filter {:?} does not go with mode {:?} and a byteStride of {}",
            c.filter, c.mode, c.stride
        ));
    }
    let data = words.as_mut_ptr().cast::<c_void>();
    // SAFETY: `words` holds `count * stride` bytes, 4-byte aligned, with a stride each
    // filter accepts (checked above).
    unsafe {
        match c.filter {
            Filter::Octahedral => meshopt::ffi::meshopt_decodeFilterOct(data, c.count, c.stride),
            Filter::Quaternion => meshopt::ffi::meshopt_decodeFilterQuat(data, c.count, c.stride),
            Filter::Exponential => meshopt::ffi::meshopt_decodeFilterExp(data, c.count, c.stride),
            Filter::None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(mode: &str, stride: usize, count: usize, filter: Option<&str>) -> Compressed {
        let mut ext = serde_json::json!({
            "buffer": 0, "byteLength": 0, "byteStride": stride, "count": count, "mode": mode,
        });
        if let Some(f) = filter {
            ext["filter"] = f.into();
        }
        parse("view", &ext).unwrap()
    }

    /// What meshoptimizer's encoder wrote decodes back to the same bytes, filters undone.
    #[test]
    fn encoded_vertices_and_indices_decode_back() {
        let vertices: Vec<[u16; 2]> = (0..50).map(|i| [i * 3, 1000 - i]).collect();
        let encoded = meshopt::encode_vertex_buffer(&vertices).unwrap();
        let bytes = decode(&view("ATTRIBUTES", 4, 50, None), &encoded).unwrap();
        assert_eq!(bytes, bytemuck::cast_slice::<_, u8>(&vertices));

        let indices: Vec<u32> = vec![0, 1, 2, 2, 1, 3, 3, 1, 4];
        let encoded = meshopt::encode_index_buffer(&indices, 5).unwrap();
        let bytes = decode(&view("TRIANGLES", 4, 9, None), &encoded).unwrap();
        assert_eq!(bytes, bytemuck::cast_slice::<_, u8>(&indices));
    }

    /// An EXPONENTIAL view holds 2^e * m per 32-bit word: 3 * 2^-1 = 1.5.
    #[test]
    fn exponential_filter_is_undone() {
        let word = ((-1i32 as u32) << 24) | 3;
        let encoded = meshopt::encode_vertex_buffer(&[[word]]).unwrap();
        let bytes = decode(&view("ATTRIBUTES", 4, 1, Some("EXPONENTIAL")), &encoded).unwrap();
        assert_eq!(f32::from_le_bytes(bytes[..4].try_into().unwrap()), 1.5);
    }

    /// Sizes the C decoder would assert on are errors in words.
    #[test]
    fn sizes_the_decoder_refuses_are_errors() {
        let odd = decode(&view("ATTRIBUTES", 6, 3, None), &[0xa0; 16]).unwrap_err();
        assert!(odd.contains("byteStride of 6"), "{odd}");
        let tri = decode(&view("TRIANGLES", 2, 4, None), &[0xe0; 16]).unwrap_err();
        assert!(tri.contains("whole triangles"), "{tri}");
        let one = meshopt::encode_vertex_buffer(&[[7u32]]).unwrap();
        let quat = decode(&view("ATTRIBUTES", 4, 1, Some("QUATERNION")), &one).unwrap_err();
        assert!(quat.contains("Quaternion"), "{quat}");
        let garbage = decode(&view("ATTRIBUTES", 4, 4, None), &[0x00; 3]).unwrap_err();
        assert!(garbage.contains("does not decode"), "{garbage}");
        let huge = decode(&view("ATTRIBUTES", 256, usize::MAX / 2, None), &[]).unwrap_err();
        assert!(huge.contains("more than this reader decodes"), "{huge}");
    }
}
