//! A statement's parameters: `?1, ?2, …` (or bare `?`s in order) bound from a tuple-like
//! list of [`ToValue`]s.

use super::{Result, ToValue, Value, ValueRef};

/// Something that binds a statement's parameters, in order.
pub trait Params {
    /// The values of `?1, ?2, …`.
    fn values(&self) -> Result<Vec<ValueRef<'_>>>;
}

impl<P: Params + ?Sized> Params for &P {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        (**self).values()
    }
}

impl<T: ToValue> Params for [T] {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        self.iter().map(ToValue::to_value).collect()
    }
}

impl<T: ToValue> Params for Vec<T> {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        self.as_slice().values()
    }
}

/// No parameters: `[]`.
impl Params for [&dyn ToValue; 0] {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        Ok(Vec::new())
    }
}

macro_rules! arrays {
    ($($n:literal),*) => {$(
        impl<T: ToValue> Params for [T; $n] {
            fn values(&self) -> Result<Vec<ValueRef<'_>>> {
                self.as_slice().values()
            }
        }
    )*};
}
arrays!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

/// The parameters of an iterator's items (see [`params_from_iter`]).
#[derive(Clone, Debug)]
pub struct ParamsFromIter(std::result::Result<Vec<Value>, String>);

/// Binds `?1, ?2, …` to the items of `iter`, for lists built at run time.
pub fn params_from_iter<I>(iter: I) -> ParamsFromIter
where
    I: IntoIterator,
    I::Item: ToValue,
{
    ParamsFromIter(
        iter.into_iter()
            .map(|v| v.to_value().map(|v| v.to_owned_value()))
            .collect::<Result<_>>()
            .map_err(|e| e.to_string()),
    )
}

impl Params for ParamsFromIter {
    fn values(&self) -> Result<Vec<ValueRef<'_>>> {
        match &self.0 {
            Ok(values) => values.values(),
            Err(e) => Err(super::DbError::Parameter(e.clone())),
        }
    }
}
