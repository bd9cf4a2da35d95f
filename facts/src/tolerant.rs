//! Reading JSON into types that deny unknown fields, skipping the members they do not know.
//!
//! The facts types keep `#[serde(deny_unknown_fields)]`: a snapshot file with a misspelt or
//! foreign field is refused, at no cost to the ordinary parse. A plugin, though, must read facts
//! from a spindle newer than the spindle-core it was built with. This adapter wraps a
//! deserializer and, for every struct (serde passes each struct's field names to
//! `deserialize_struct` and `struct_variant`), reads each member's key itself: a key the struct
//! names goes on to the struct's own visitor, any other is reported with its JSON pointer and its
//! value skipped, so the struct never sees it. The wrapped parse does a little more work per
//! value than the plain one, so it runs only after the plain parse has failed.
//!
//! Objects read as maps (not structs) pass through as they are: no facts type has one.

use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// An object member that the type it was read into does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unknown {
    /// RFC 6901 pointer to the member: `/volumes/0/fs_stripe_unit_bytes`.
    pub pointer: String,
    /// The member's key.
    pub key: String,
    /// The fields the struct does know.
    pub fields: &'static [&'static str],
}

/// Parses `text` as `T`, calling `on_unknown` for each object member that `T` (or a struct
/// inside it) does not know, in document order, and skipping it.
pub(crate) fn from_str<'de, T: Deserialize<'de>>(
    text: &'de str,
    mut on_unknown: impl FnMut(Unknown),
) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Wrap { de: &mut de, cb: &mut on_unknown, path: Path::Root })?;
    de.end()?;
    Ok(value)
}

/// Where a value is, as a chain of stack frames (nothing is allocated until a pointer is needed).
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Member { parent: &'a Path<'a>, key: &'a str },
    Index { parent: &'a Path<'a>, index: usize },
}

impl Path<'_> {
    fn write_pointer(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Member { parent, key } => {
                parent.write_pointer(out);
                out.push('/');
                for c in key.chars() {
                    match c {
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
            Path::Index { parent, index } => {
                parent.write_pointer(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

/// A key as the input holds it: borrowed unless it had escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v))
    }
}

/// The deserializer of one value at `path`.
struct Wrap<'a, 'b, D, F> {
    de: D,
    cb: &'b mut F,
    path: Path<'a>,
}

impl<'a, 'b, D, F> Wrap<'a, 'b, D, F> {
    fn visitor<V>(self, v: V, fields: Option<&'static [&'static str]>) -> (D, WrapVisitor<'a, 'b, V, F>) {
        (self.de, WrapVisitor { v, cb: self.cb, path: self.path, fields })
    }
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* v: V) -> Result<V::Value, D::Error> {
                let (de, v) = self.visitor(v, None);
                de.$method($($arg,)* v)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>, F: FnMut(Unknown)> Deserializer<'de> for Wrap<'_, '_, D, F> {
    type Error = D::Error;

    forward! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        let (de, v) = self.visitor(v, Some(fields));
        de.deserialize_struct(name, fields, v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_ignored_any(v)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The visitor of one value at `path`; `fields` when the value is read as a struct.
struct WrapVisitor<'a, 'b, V, F> {
    v: V,
    cb: &'b mut F,
    path: Path<'a>,
    fields: Option<&'static [&'static str]>,
}

macro_rules! pass {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, x: $ty) -> Result<V::Value, E> {
                self.v.$method(x)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>, F: FnMut(Unknown)> Visitor<'de> for WrapVisitor<'_, '_, V, F> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    pass! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.v.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Wrap { de: d, cb: self.cb, path: self.path })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(Wrap { de: d, cb: self.cb, path: self.path })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(WrapSeq { seq, cb: self.cb, path: self.path, index: 0 })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(WrapMap { map, cb: self.cb, path: self.path, fields: self.fields, key: None })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(WrapEnum { data, cb: self.cb, path: self.path })
    }
}

/// A value to be read at `path` by someone else's seed.
struct WrapSeed<'a, 'b, S, F> {
    seed: S,
    cb: &'b mut F,
    path: Path<'a>,
}

impl<'de, S: DeserializeSeed<'de>, F: FnMut(Unknown)> DeserializeSeed<'de> for WrapSeed<'_, '_, S, F> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Wrap { de: d, cb: self.cb, path: self.path })
    }
}

struct WrapSeq<'a, 'b, A, F> {
    seq: A,
    cb: &'b mut F,
    path: Path<'a>,
    index: usize,
}

impl<'de, A: SeqAccess<'de>, F: FnMut(Unknown)> SeqAccess<'de> for WrapSeq<'_, '_, A, F> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        let path = Path::Index { parent: &self.path, index: self.index };
        self.index += 1;
        self.seq.next_element_seed(WrapSeed { seed, cb: &mut *self.cb, path })
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

struct WrapMap<'a, 'b, 'de, A, F> {
    map: A,
    cb: &'b mut F,
    path: Path<'a>,
    /// The struct's fields; `None` for a map, whose keys all pass.
    fields: Option<&'static [&'static str]>,
    /// The key of the member whose value is next.
    key: Option<Key<'de>>,
}

impl<'de, A: MapAccess<'de>, F: FnMut(Unknown)> MapAccess<'de> for WrapMap<'_, '_, 'de, A, F> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let Some(fields) = self.fields else {
            self.key = None;
            return self.map.next_key_seed(seed);
        };
        loop {
            let Some(key) = self.map.next_key_seed(KeySeed)? else {
                return Ok(None);
            };
            if fields.contains(&key.as_str()) {
                let value = match &key {
                    Key::Borrowed(s) => seed.deserialize(BorrowedStrDeserializer::new(s))?,
                    Key::Owned(s) => seed.deserialize(StrDeserializer::new(s))?,
                };
                self.key = Some(key);
                return Ok(Some(value));
            }
            let mut pointer = String::new();
            Path::Member { parent: &self.path, key: key.as_str() }.write_pointer(&mut pointer);
            (self.cb)(Unknown { pointer, key: key.as_str().to_owned(), fields });
            self.map.next_value::<IgnoredAny>()?;
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        // A map's keys are not captured: its members' pointers say `*`.
        let key = self.key.as_ref().map_or("*", Key::as_str);
        let path = Path::Member { parent: &self.path, key };
        self.map.next_value_seed(WrapSeed { seed, cb: &mut *self.cb, path })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

struct WrapEnum<'a, 'b, A, F> {
    data: A,
    cb: &'b mut F,
    path: Path<'a>,
}

impl<'a, 'b, 'de, A: EnumAccess<'de>, F: FnMut(Unknown)> EnumAccess<'de> for WrapEnum<'a, 'b, A, F> {
    type Error = A::Error;
    type Variant = WrapVariant<'a, 'b, 'de, A::Variant, F>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let mut name = None;
        let (value, variant) = self.data.variant_seed(NameSeed { seed, name: &mut name })?;
        Ok((value, WrapVariant { variant, cb: self.cb, path: self.path, name }))
    }
}

/// An enum's content, under its variant's name (`/backed_by/lvm/...`).
struct WrapVariant<'a, 'b, 'de, A, F> {
    variant: A,
    cb: &'b mut F,
    path: Path<'a>,
    name: Option<Key<'de>>,
}

impl<'de, A: VariantAccess<'de>, F: FnMut(Unknown)> VariantAccess<'de> for WrapVariant<'_, '_, 'de, A, F> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        let key = self.name.as_ref().map_or("*", Key::as_str);
        let path = Path::Member { parent: &self.path, key };
        self.variant.newtype_variant_seed(WrapSeed { seed, cb: self.cb, path })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, A::Error> {
        let key = self.name.as_ref().map_or("*", Key::as_str);
        let path = Path::Member { parent: &self.path, key };
        self.variant.tuple_variant(len, WrapVisitor { v, cb: self.cb, path, fields: None })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, A::Error> {
        let key = self.name.as_ref().map_or("*", Key::as_str);
        let path = Path::Member { parent: &self.path, key };
        self.variant.struct_variant(fields, WrapVisitor { v, cb: self.cb, path, fields: Some(fields) })
    }
}

/// Reads a variant's name with `seed`, keeping a copy of it.
struct NameSeed<'n, 'de, S> {
    seed: S,
    name: &'n mut Option<Key<'de>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NameSeed<'_, 'de, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(NameDe { de: d, name: self.name })
    }
}

struct NameDe<'n, 'de, D> {
    de: D,
    name: &'n mut Option<Key<'de>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for NameDe<'_, 'de, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(NameVisitor { v, name: self.name })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_identifier(NameVisitor { v, name: self.name })
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_str(NameVisitor { v, name: self.name })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

struct NameVisitor<'n, 'de, V> {
    v: V,
    name: &'n mut Option<Key<'de>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for NameVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        *self.name = Some(Key::Borrowed(s));
        self.v.visit_borrowed_str(s)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        *self.name = Some(Key::Owned(s.to_owned()));
        self.v.visit_str(s)
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        *self.name = Some(Key::Owned(s.clone()));
        self.v.visit_string(s)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<V::Value, E> {
        self.v.visit_u64(n)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<V::Value, E> {
        self.v.visit_bytes(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Backing, Snapshot};

    fn tolerant(text: &str) -> (Snapshot, Vec<String>) {
        let mut seen = vec![];
        let s = from_str::<Snapshot>(text, |u| seen.push(u.pointer)).unwrap_or_else(|e| panic!("{e}"));
        (s, seen)
    }

    #[test]
    fn skips_unknown_members_at_any_depth_and_names_them() {
        let with = r#"{
            "schema_version": 1, "future": {"a": [1, {"b": 2}]},
            "host": {"name": "h", "cpus": 4},
            "volumes": [
                {"id": "v0"},
                {"id": "v1", "new~thing": "x", "backed_by": {"lvm": {"name": "lv", "stripe/s": 2, "stripes": 4}}}
            ],
            "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "d", "files": [
                {"logical_name": "f", "type": "rows", "physical_name": "E:\\f.mdf",
                 "growth": {"percent": 10}, "io": {"num_of_reads": 1, "num_of_writes": 1,
                 "num_of_bytes_read": 1, "num_of_bytes_written": 1, "io_stall_read_ms": 1,
                 "io_stall_write_ms": 1, "stall_ms": 9}}
            ]}]}],
            "later": null
        }"#;
        let (s, seen) = tolerant(with);
        assert_eq!(
            seen,
            [
                "/future",
                "/host/cpus",
                "/volumes/1/new~0thing",
                "/volumes/1/backed_by/lvm/stripe~1s",
                "/sql_instances/0/databases/0/files/0/io/stall_ms",
                "/later",
            ]
        );
        assert_eq!(s.host.name, "h");
        let v1 = &s.volumes.as_ref().unwrap()[1];
        assert_eq!(
            v1.backed_by,
            Some(Backing::Lvm {
                name: "lv".into(),
                stripes: Some(4),
                stripe_unit_bytes: None,
                devices: vec![]
            })
        );
    }

    #[test]
    fn reads_what_the_strict_parse_reads() {
        let text = r#"{"schema_version": 1, "host": {"name": "h\u00e9", "cpu_count": 8},
            "disks": [{"id": "d", "media": "ssd"}],
            "volumes": [{"id": "v", "backed_by": {"partitions": ["p1", "p2"]}, "mount_points": ["E:\\"]}],
            "sql_instances": [{"name": "I", "databases": [{"name": "d", "files": [
                {"logical_name": "f", "type": "log", "physical_name": "E:\\f.ldf",
                 "growth": "disabled", "max_size": {"bytes": 1024}}]}]}]}"#;
        let strict: Snapshot = serde_json::from_str(text).unwrap();
        assert_eq!(tolerant(text), (strict, vec![]));
    }

    #[test]
    fn other_errors_stay_errors() {
        for text in [
            r#"{"schema_version": 1, "host": {"name": "h", "cpu_count": -1}}"#,
            r#"{"schema_version": 1, "host": {"name": "h"}, "disks": [{"id": "d", "media": "tape"}]}"#,
            r#"{"schema_version": 1, "host": {"name": "h"}, "x": }"#,
            r#"{"schema_version": 1}"#,
            r#"{"schema_version": 1, "host": {"name": "h"}} trailing"#,
        ] {
            assert!(from_str::<Snapshot>(text, |_| {}).is_err(), "{text}");
        }
    }
}
