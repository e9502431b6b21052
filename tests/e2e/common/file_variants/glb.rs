//! A small GLB container reader/writer on serde_json: the variants rewrite the JSON and append
//! new binary data (new buffer views and accessors) instead of editing bytes in place, so an
//! accessor shared with something else is never changed behind its back.

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

/// A GLB file: its JSON document and its BIN chunk (buffer 0).
pub struct Glb {
    pub json: Value,
    pub bin: Vec<u8>,
}

const FLOAT: u64 = 5126;

impl Glb {
    /// Parses a GLB (version 2); panics on anything else, as test input is known.
    pub fn parse(bytes: &[u8]) -> Glb {
        assert!(bytes.starts_with(b"glTF"), "not a GLB");
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
        let mut at = 12;
        let (mut json, mut bin) = (None, Vec::new());
        while at + 8 <= bytes.len() {
            let (len, kind) = (u32_at(at), &bytes[at + 4..at + 8]);
            let data = &bytes[at + 8..at + 8 + len];
            match kind {
                b"JSON" => json = Some(serde_json::from_slice(data).expect("GLB JSON")),
                b"BIN\0" => bin = data.to_vec(),
                _ => {}
            }
            at += 8 + len;
        }
        let glb = Glb {
            json: json.expect("a JSON chunk"),
            bin,
        };
        if let Some(b) = glb.json["buffers"].get(0) {
            assert!(
                b.get("uri").is_none(),
                "buffer 0 must be the GLB's BIN chunk"
            );
        }
        glb
    }

    /// The GLB bytes: JSON padded with spaces, BIN with zeros, both to 4 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.json).unwrap();
        while json.len() % 4 != 0 {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
        let mut out = Vec::with_capacity(total);
        out.extend(b"glTF");
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((json.len() as u32).to_le_bytes());
        out.extend(b"JSON");
        out.extend(json);
        if !bin.is_empty() {
            out.extend((bin.len() as u32).to_le_bytes());
            out.extend(b"BIN\0");
            out.extend(bin);
        }
        out
    }

    /// An array of the document (`nodes`, `skins`, …), empty when absent.
    pub fn array(&self, key: &str) -> Vec<Value> {
        self.json[key].as_array().cloned().unwrap_or_default()
    }

    pub fn node_count(&self) -> usize {
        self.json["nodes"].as_array().map_or(0, Vec::len)
    }

    /// An accessor's elements as floats, `n` per element (normalized integers scaled as the
    /// spec says; sparse accessors are not used by the bundled files and are refused).
    pub fn read_floats(&self, accessor: usize) -> Vec<Vec<f32>> {
        let a = &self.json["accessors"][accessor];
        assert!(
            a.get("sparse").is_none(),
            "sparse accessors are not supported"
        );
        let n = components(a["type"].as_str().unwrap());
        let count = a["count"].as_u64().unwrap() as usize;
        let ctype = a["componentType"].as_u64().unwrap();
        let size = component_size(ctype);
        let view = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let stride = view["byteStride"].as_u64().map_or(n * size, |s| s as usize);
        let normalized = a["normalized"].as_bool().unwrap_or(false);
        (0..count)
            .map(|i| {
                (0..n)
                    .map(|c| {
                        let at = start + i * stride + c * size;
                        read_component(&self.bin[at..at + size], ctype, normalized)
                    })
                    .collect()
            })
            .collect()
    }

    /// Appends float data as a new buffer view and accessor of `kind` (`VEC3`, `MAT4`, …);
    /// returns the accessor's index.
    pub fn push_floats(&mut self, kind: &str, elements: &[Vec<f32>]) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        for e in elements {
            assert_eq!(e.len(), components(kind), "element size of {kind}");
            e.iter().for_each(|v| self.bin.extend(v.to_le_bytes()));
        }
        let length = self.bin.len() - offset;
        let views = push(
            &mut self.json,
            "bufferViews",
            json!({
                "buffer": 0, "byteOffset": offset, "byteLength": length
            }),
        );
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        push(
            &mut self.json,
            "accessors",
            json!({
                "bufferView": views, "componentType": FLOAT, "count": elements.len(), "type": kind
            }),
        )
    }

    /// A node's local transform as TRS (a `matrix` is decomposed).
    pub fn node_trs(&self, node: usize) -> (Vec3, Quat, Vec3) {
        node_trs(&self.json["nodes"][node])
    }

    /// Sets a node's local transform as TRS, dropping any `matrix`.
    pub fn set_node_trs(&mut self, node: usize, (t, r, s): (Vec3, Quat, Vec3)) {
        let n = self.json["nodes"][node].as_object_mut().unwrap();
        n.remove("matrix");
        n.insert("translation".into(), json!(t.to_array()));
        n.insert("rotation".into(), json!(r.normalize().to_array()));
        n.insert("scale".into(), json!(s.to_array()));
    }

    /// A node's world matrix from the node transforms.
    pub fn world(&self, node: usize) -> Mat4 {
        let parents = self.parents();
        let mut m = Mat4::IDENTITY;
        let mut at = Some(node);
        while let Some(n) = at {
            let (t, r, s) = self.node_trs(n);
            m = Mat4::from_scale_rotation_translation(s, r, t) * m;
            at = parents[n];
        }
        m
    }

    /// Each node's parent.
    pub fn parents(&self) -> Vec<Option<usize>> {
        let mut parents = vec![None; self.node_count()];
        for (i, n) in self.array("nodes").iter().enumerate() {
            for c in indices(&n["children"]) {
                parents[c] = Some(i);
            }
        }
        parents
    }

    /// The scene shown by default (`scene`, else 0).
    pub fn scene(&self) -> usize {
        self.json["scene"].as_u64().unwrap_or(0) as usize
    }

    /// Every node that is a joint of some skin.
    pub fn skin_joints(&self) -> Vec<usize> {
        let mut joints: Vec<usize> = self
            .array("skins")
            .iter()
            .flat_map(|s| indices(&s["joints"]))
            .collect();
        joints.sort_unstable();
        joints.dedup();
        joints
    }

    /// Nodes that carry a skinned mesh.
    pub fn skinned_mesh_nodes(&self) -> Vec<usize> {
        let nodes = self.array("nodes");
        (0..nodes.len())
            .filter(|&i| nodes[i].get("skin").is_some())
            .collect()
    }

    /// Rewrites every skin's inverse bind matrices one by one: `f(joint node, IBM) -> IBM'`.
    pub fn map_inverse_binds(&mut self, mut f: impl FnMut(usize, Mat4) -> Mat4) {
        self.map_skins(|_, joints, ibms| joints.iter().zip(ibms).map(|(&j, &m)| f(j, m)).collect());
    }

    /// Rewrites every skin's inverse bind matrices at once: `f(skin, joint nodes, IBMs) ->
    /// IBMs'` (identity where the skin has none); each skin gets a new accessor.
    pub fn map_skins(&mut self, mut f: impl FnMut(usize, &[usize], &[Mat4]) -> Vec<Mat4>) {
        for (s, skin) in self.array("skins").iter().enumerate() {
            let joints = indices(&skin["joints"]);
            let old: Vec<Mat4> = match skin["inverseBindMatrices"].as_u64() {
                Some(a) => self
                    .read_floats(a as usize)
                    .iter()
                    .map(|m| Mat4::from_cols_slice(m))
                    .collect(),
                None => vec![Mat4::IDENTITY; joints.len()],
            };
            let new: Vec<Vec<f32>> = f(s, &joints, &old)
                .iter()
                .map(|m| m.to_cols_array().to_vec())
                .collect();
            let acc = self.push_floats("MAT4", &new);
            self.json["skins"][s]["inverseBindMatrices"] = json!(acc);
        }
    }
}

/// Appends `value` to the array `key` of `doc` (created if absent); returns its index.
pub fn push(doc: &mut Value, key: &str, value: Value) -> usize {
    if !doc[key].is_array() {
        doc[key] = json!([]);
    }
    let arr = doc[key].as_array_mut().unwrap();
    arr.push(value);
    arr.len() - 1
}

/// A JSON array of indices as `usize`s (empty when absent).
pub fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as usize)
                .collect()
        })
        .unwrap_or_default()
}

fn node_trs(n: &Value) -> (Vec3, Quat, Vec3) {
    if let Some(m) = n["matrix"].as_array() {
        let cols: Vec<f32> = m.iter().map(|x| x.as_f64().unwrap() as f32).collect();
        let (s, r, t) = Mat4::from_cols_slice(&cols).to_scale_rotation_translation();
        return (t, r, s);
    }
    let get = |key: &str, default: &[f32]| -> Vec<f32> {
        n[key].as_array().map_or(default.to_vec(), |a| {
            a.iter().map(|x| x.as_f64().unwrap() as f32).collect()
        })
    };
    let t = get("translation", &[0.0; 3]);
    let r = get("rotation", &[0.0, 0.0, 0.0, 1.0]);
    let s = get("scale", &[1.0; 3]);
    (
        Vec3::from_slice(&t),
        Quat::from_slice(&r).normalize(),
        Vec3::from_slice(&s),
    )
}

fn components(kind: &str) -> usize {
    match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        other => panic!("accessor type {other}"),
    }
}

fn component_size(ctype: u64) -> usize {
    match ctype {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        other => panic!("component type {other}"),
    }
}

fn read_component(b: &[u8], ctype: u64, normalized: bool) -> f32 {
    let (v, max) = match ctype {
        5126 => return f32::from_le_bytes(b.try_into().unwrap()),
        5120 => (b[0] as i8 as f32, 127.0),
        5121 => (b[0] as f32, 255.0),
        5122 => (i16::from_le_bytes([b[0], b[1]]) as f32, 32767.0),
        5123 => (u16::from_le_bytes([b[0], b[1]]) as f32, 65535.0),
        _ => (u32::from_le_bytes(b.try_into().unwrap()) as f32, 1.0),
    };
    if normalized { (v / max).max(-1.0) } else { v }
}
