//! Whether redaction would change a value, found by walking its
//! serialization: every string a JSON value of it would hold (keys,
//! field and variant names included) is searched, and no JSON value is
//! built. Anything the walk does not know stops it as a change, so that
//! the caller redacts the JSON value itself ([`Redactor::redact_value`]).

use std::borrow::Cow;
use std::fmt;

use serde::ser::{self, Serialize};

use super::Redactor;

/// A string redaction would change, or a value the walk does not read.
#[derive(Debug)]
pub(super) struct Changed;

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("redaction would change it")
    }
}

impl std::error::Error for Changed {}

impl ser::Error for Changed {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Changed
    }
}

/// The walk over a value (and over a map's keys, as JSON writes them).
#[derive(Clone, Copy)]
pub(super) struct Probe<'a>(pub(super) &'a Redactor);

impl Probe<'_> {
    fn text(self, s: &str) -> Result<(), Changed> {
        match self.0.redact(s) {
            Cow::Borrowed(_) => Ok(()),
            Cow::Owned(_) => Err(Changed),
        }
    }
}

macro_rules! nothing_to_search {
    ($($f:ident: $t:ty),*) => {
        $(fn $f(self, _: $t) -> Result<(), Changed> { Ok(()) })*
    };
}

macro_rules! number_as_text {
    ($($f:ident: $t:ty),*) => {
        $(fn $f(self, v: $t) -> Result<(), Changed> { self.text(&v.to_string()) })*
    };
}

impl ser::Serializer for Probe<'_> {
    type Ok = ();
    type Error = Changed;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    nothing_to_search!(serialize_bool: bool, serialize_bytes: &[u8]);

    // A number's text is searched, as [`Redactor::redact_value`] does.
    number_as_text!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128
    );
    fn serialize_f32(self, v: f32) -> Result<(), Changed> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Changed> {
        // As a JSON value holds it: a number that is not finite is null.
        match serde_json::Number::from_f64(v) {
            Some(n) => self.text(&n.to_string()),
            None => Ok(()),
        }
    }

    fn serialize_char(self, v: char) -> Result<(), Changed> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Changed> {
        self.text(v)
    }
    fn serialize_none(self) -> Result<(), Changed> {
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), Changed> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Changed> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Changed> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Changed> {
        self.text(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Changed> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Changed> {
        self.text(variant)?;
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Changed> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Changed> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Changed> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Changed> {
        self.text(variant)?;
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Changed> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Changed> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Changed> {
        self.text(variant)?;
        Ok(self)
    }
}

/// The parts of a sequence, tuple or tuple variant: each is walked.
macro_rules! walk_parts {
    ($($t:ident::$f:ident),*) => {
        $(impl ser::$t for Probe<'_> {
            type Ok = ();
            type Error = Changed;
            fn $f<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Changed> {
                v.serialize(*self)
            }
            fn end(self) -> Result<(), Changed> {
                Ok(())
            }
        })*
    };
}

walk_parts!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Probe<'_> {
    type Ok = ();
    type Error = Changed;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Changed> {
        k.serialize(Key(*self))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Changed> {
        v.serialize(*self)
    }
    fn end(self) -> Result<(), Changed> {
        Ok(())
    }
}

/// The fields of a struct or struct variant: each name and value is
/// walked (a JSON value of it holds the names as keys).
macro_rules! walk_fields {
    ($($t:ident),*) => {
        $(impl ser::$t for Probe<'_> {
            type Ok = ();
            type Error = Changed;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), Changed> {
                self.text(key)?;
                v.serialize(*self)
            }
            fn end(self) -> Result<(), Changed> {
                Ok(())
            }
        })*
    };
}

walk_fields!(SerializeStruct, SerializeStructVariant);

/// A map's key, searched as the text JSON writes for it: a string, a
/// character, a number or a boolean. Any other key stops the walk.
struct Key<'a>(Probe<'a>);

macro_rules! key_as_text {
    ($($f:ident: $t:ty),*) => {
        $(fn $f(self, v: $t) -> Result<(), Changed> { self.0.text(&v.to_string()) })*
    };
}

macro_rules! key_refused {
    ($($f:ident($($a:ty),*) -> $r:ty),*) => {
        $(fn $f(self, $(_: $a),*) -> Result<$r, Changed> { Err(Changed) })*
    };
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Changed;
    type SerializeSeq = ser::Impossible<(), Changed>;
    type SerializeTuple = ser::Impossible<(), Changed>;
    type SerializeTupleStruct = ser::Impossible<(), Changed>;
    type SerializeTupleVariant = ser::Impossible<(), Changed>;
    type SerializeMap = ser::Impossible<(), Changed>;
    type SerializeStruct = ser::Impossible<(), Changed>;
    type SerializeStructVariant = ser::Impossible<(), Changed>;

    key_as_text!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_char: char
    );
    key_refused!(
        serialize_f32(f32) -> (), serialize_f64(f64) -> (), serialize_bytes(&[u8]) -> (),
        serialize_none() -> (), serialize_unit() -> (), serialize_unit_struct(&'static str) -> (),
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant
    );

    fn serialize_str(self, v: &str) -> Result<(), Changed> {
        self.0.text(v)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Changed> {
        self.0.text(variant)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Changed> {
        Err(Changed)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Changed> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Changed> {
        Err(Changed)
    }
}
