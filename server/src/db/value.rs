//! Values crossing the seam: what a parameter binds ([`ToValue`] → [`ValueRef`]), what a
//! column decodes into ([`FromValue`]), and an owned [`Value`] for lists built at run time.

use super::{DbError, Result};

/// A borrowed value: a parameter on its way in, a column on its way out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueRef<'a> {
    /// SQL NULL.
    Null,
    /// A 64-bit integer (also booleans, as 0/1).
    Integer(i64),
    /// A double.
    Real(f64),
    /// UTF-8 text.
    Text(&'a str),
    /// Bytes.
    Blob(&'a [u8]),
}

impl<'a> ValueRef<'a> {
    /// The owned copy.
    pub fn to_owned_value(&self) -> Value {
        match *self {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(f) => Value::Real(f),
            ValueRef::Text(s) => Value::Text(s.to_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }

    /// The bytes of a blob; an error for any other value.
    pub(crate) fn as_blob(&self) -> Result<&'a [u8]> {
        match *self {
            ValueRef::Blob(b) => Ok(b),
            other => wrong(other, 0, "a blob"),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ValueRef::Null => "NULL",
            ValueRef::Integer(_) => "an integer",
            ValueRef::Real(_) => "a real",
            ValueRef::Text(_) => "text",
            ValueRef::Blob(_) => "a blob",
        }
    }
}

/// An owned value, for parameter lists built at run time (`Vec<Value>` is `super::Params`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit integer.
    Integer(i64),
    /// A double.
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// A Rust value that binds as a statement parameter.
pub trait ToValue {
    /// The value to bind; an error for one the database cannot hold.
    fn to_value(&self) -> Result<ValueRef<'_>>;
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        (**self).to_value()
    }
}

impl<T: ToValue + ?Sized> ToValue for Box<T> {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        match self {
            Some(v) => v.to_value(),
            None => Ok(ValueRef::Null),
        }
    }
}

impl ToValue for Value {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(match self {
            Value::Null => ValueRef::Null,
            Value::Integer(i) => ValueRef::Integer(*i),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s),
            Value::Blob(b) => ValueRef::Blob(b),
        })
    }
}

impl ToValue for ValueRef<'_> {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(*self)
    }
}

impl ToValue for str {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Text(self))
    }
}

impl ToValue for String {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Text(self))
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Blob(self))
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Blob(self))
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Real(*self))
    }
}

impl ToValue for f32 {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Real(f64::from(*self)))
    }
}

impl ToValue for bool {
    fn to_value(&self) -> Result<ValueRef<'_>> {
        Ok(ValueRef::Integer(i64::from(*self)))
    }
}

macro_rules! small_ints {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Result<ValueRef<'_>> {
                Ok(ValueRef::Integer(i64::from(*self)))
            }
        }
    )*};
}
small_ints!(i8, i16, i32, i64, u8, u16, u32);

macro_rules! big_ints {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Result<ValueRef<'_>> {
                i64::try_from(*self)
                    .map(ValueRef::Integer)
                    .map_err(|_| DbError::Parameter(format!("{self} is beyond a 64-bit integer")))
            }
        }
    )*};
}
big_ints!(u64, usize, isize, i128, u128);

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Text(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Text(s.to_owned())
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Integer(i)
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Integer(i64::from(i))
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Real(f)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Integer(i64::from(b))
    }
}

impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Self {
        Value::Blob(b)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

/// A Rust value a column decodes into. `index` names the column in errors.
pub trait FromValue: Sized {
    /// Decodes `v`, or says why it cannot.
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self>;
}

fn wrong<T>(v: ValueRef<'_>, index: usize, want: &str) -> Result<T> {
    Err(DbError::column(
        index,
        format!("expected {want}, found {}", v.kind()),
    ))
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
        match v {
            ValueRef::Null => Ok(None),
            other => T::from_value(other, index).map(Some),
        }
    }
}

impl FromValue for Value {
    fn from_value(v: ValueRef<'_>, _: usize) -> Result<Self> {
        Ok(v.to_owned_value())
    }
}

impl FromValue for String {
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
        match v {
            ValueRef::Text(s) => Ok(s.to_owned()),
            other => wrong(other, index, "text"),
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
        match v {
            ValueRef::Blob(b) => Ok(b.to_vec()),
            ValueRef::Text(s) => Ok(s.as_bytes().to_vec()),
            other => wrong(other, index, "a blob"),
        }
    }
}

impl FromValue for f64 {
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
        match v {
            ValueRef::Real(f) => Ok(f),
            ValueRef::Integer(i) => Ok(i as f64),
            other => wrong(other, index, "a number"),
        }
    }
}

impl FromValue for bool {
    fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
        match v {
            ValueRef::Integer(i) => Ok(i != 0),
            other => wrong(other, index, "an integer"),
        }
    }
}

macro_rules! from_ints {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: ValueRef<'_>, index: usize) -> Result<Self> {
                match v {
                    ValueRef::Integer(i) => <$t>::try_from(i).map_err(|_| {
                        DbError::column(index, format!("{i} is out of range for {}", stringify!($t)))
                    }),
                    other => wrong(other, index, "an integer"),
                }
            }
        }
    )*};
}
from_ints!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);
