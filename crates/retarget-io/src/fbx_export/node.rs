//! The FBX node tree in memory, written out by fbxcel's binary 7.4 writer: building the
//! tree first lets objects and their connections be gathered in any order.

use fbxcel::low::FbxVersion;
use fbxcel::low::v7400::ArrayAttributeEncoding;
use fbxcel::writer::v7400::binary::{FbxFooter, Writer};
use std::io::{Cursor, Write};

/// One attribute of a node, as FBX types it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Attr {
    Bool(bool),
    I32(i32),
    I64(i64),
    F64(f64),
    Str(String),
    Bytes(Vec<u8>),
    I32s(Vec<i32>),
    I64s(Vec<i64>),
    F32s(Vec<f32>),
    F64s(Vec<f64>),
}

impl From<i32> for Attr {
    fn from(v: i32) -> Self {
        Attr::I32(v)
    }
}
impl From<i64> for Attr {
    fn from(v: i64) -> Self {
        Attr::I64(v)
    }
}
impl From<f64> for Attr {
    fn from(v: f64) -> Self {
        Attr::F64(v)
    }
}
impl From<&str> for Attr {
    fn from(v: &str) -> Self {
        Attr::Str(v.to_owned())
    }
}
impl From<String> for Attr {
    fn from(v: String) -> Self {
        Attr::Str(v)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Node {
    pub name: &'static str,
    pub attrs: Vec<Attr>,
    pub children: Vec<Node>,
}

impl Node {
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            ..Default::default()
        }
    }

    pub fn attr(mut self, a: impl Into<Attr>) -> Self {
        self.attrs.push(a.into());
        self
    }

    pub fn child(mut self, n: Node) -> Self {
        self.children.push(n);
        self
    }

    /// A child holding one value: `Version: 232`.
    pub fn value(self, name: &'static str, a: impl Into<Attr>) -> Self {
        self.child(Node::new(name).attr(a))
    }

    pub fn push(&mut self, n: Node) {
        self.children.push(n);
    }
}

/// An object's name as FBX stores it: the name, `\0\x01`, its class.
pub(super) fn object_name(name: &str, class: &str) -> String {
    format!("{name}\u{0}\u{1}{class}")
}

/// A `Properties70` block under construction: one `P` node per property.
#[derive(Default)]
pub(super) struct Props(Vec<Node>);

impl Props {
    fn p(&mut self, name: &str, ty: &str, label: &str, flags: &str) -> &mut Node {
        self.0
            .push(Node::new("P").attr(name).attr(ty).attr(label).attr(flags));
        self.0.last_mut().expect("just pushed")
    }

    pub fn int(&mut self, name: &str, v: i32) -> &mut Self {
        self.p(name, "int", "Integer", "").attrs.push(Attr::I32(v));
        self
    }

    pub fn enumeration(&mut self, name: &str, v: i32) -> &mut Self {
        self.p(name, "enum", "", "").attrs.push(Attr::I32(v));
        self
    }

    pub fn bool(&mut self, name: &str, v: bool) -> &mut Self {
        self.p(name, "bool", "", "").attrs.push(Attr::I32(v as i32));
        self
    }

    pub fn double(&mut self, name: &str, v: f64) -> &mut Self {
        self.p(name, "double", "Number", "")
            .attrs
            .push(Attr::F64(v));
        self
    }

    pub fn number(&mut self, name: &str, v: f64) -> &mut Self {
        self.p(name, "Number", "", "A").attrs.push(Attr::F64(v));
        self
    }

    pub fn time(&mut self, name: &str, ticks: i64) -> &mut Self {
        self.p(name, "KTime", "Time", "")
            .attrs
            .push(Attr::I64(ticks));
        self
    }

    pub fn string(&mut self, name: &str, v: &str) -> &mut Self {
        self.p(name, "KString", "", "").attrs.push(Attr::from(v));
        self
    }

    /// `Lcl Translation` and the like: animatable vectors.
    pub fn lcl(&mut self, name: &str, v: [f64; 3]) -> &mut Self {
        let p = self.p(name, name, "", "A");
        p.attrs.extend(v.map(Attr::F64));
        self
    }

    pub fn vector(&mut self, name: &str, v: [f64; 3]) -> &mut Self {
        let p = self.p(name, "Vector3D", "Vector", "");
        p.attrs.extend(v.map(Attr::F64));
        self
    }

    pub fn color(&mut self, name: &str, v: [f64; 3]) -> &mut Self {
        let p = self.p(name, "Color", "", "A");
        p.attrs.extend(v.map(Attr::F64));
        self
    }

    pub fn node(&mut self) -> Node {
        Node {
            name: "Properties70",
            attrs: Vec::new(),
            children: std::mem::take(&mut self.0),
        }
    }
}

/// Geometry arrays this long or longer are zlib-compressed, as FBX SDK files have them.
/// Animation curves (`KeyTime`, `KeyValueFloat`, …) are not: fbxcel's deflate made them 20
/// times slower to write for 45% of the size (`cargo bench --bench export`).
const COMPRESS_FROM: usize = 1024;

/// The whole file: header, `nodes` at the top level, footer.
pub(super) fn to_bytes(nodes: &[Node]) -> Result<Vec<u8>, String> {
    let mut writer = Writer::new(Cursor::new(Vec::new()), FbxVersion::V7_4).map_err(words)?;
    for n in nodes {
        write_node(&mut writer, n).map_err(words)?;
    }
    let cursor = writer
        .finalize_and_flush(&FbxFooter::default())
        .map_err(words)?;
    Ok(cursor.into_inner())
}

fn words(e: fbxcel::writer::v7400::binary::Error) -> String {
    format!("the FBX writer failed: {e}")
}

fn write_node<W: Write + std::io::Seek>(
    w: &mut Writer<W>,
    node: &Node,
) -> fbxcel::writer::v7400::binary::Result<()> {
    let curve = node.name.starts_with("Key");
    let encoding = |len: usize| {
        Some(if len >= COMPRESS_FROM && !curve {
            ArrayAttributeEncoding::Zlib
        } else {
            ArrayAttributeEncoding::Direct
        })
    };
    {
        let mut a = w.new_node(node.name)?;
        for attr in &node.attrs {
            match attr {
                Attr::Bool(v) => a.append_bool(*v)?,
                Attr::I32(v) => a.append_i32(*v)?,
                Attr::I64(v) => a.append_i64(*v)?,
                Attr::F64(v) => a.append_f64(*v)?,
                Attr::Str(v) => a.append_string_direct(v)?,
                Attr::Bytes(v) => a.append_binary_direct(v)?,
                Attr::I32s(v) => {
                    a.append_arr_i32_from_iter(encoding(v.len()), v.iter().copied())?
                }
                Attr::I64s(v) => {
                    a.append_arr_i64_from_iter(encoding(v.len()), v.iter().copied())?
                }
                Attr::F32s(v) => {
                    a.append_arr_f32_from_iter(encoding(v.len()), v.iter().copied())?
                }
                Attr::F64s(v) => {
                    a.append_arr_f64_from_iter(encoding(v.len()), v.iter().copied())?
                }
            }
        }
    }
    for c in &node.children {
        write_node(w, c)?;
    }
    w.close_node()
}
