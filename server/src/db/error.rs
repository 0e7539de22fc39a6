//! The database's errors, whatever the backend.

/// A result of the database seam.
pub(crate) type Result<T, E = DbError> = std::result::Result<T, E>;

/// What went wrong talking to the database. The crate's [`crate::Error`] converts it:
/// limits become `InvalidParameter`, the rest `Internal` without the statement's text.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// An error of the SQLite driver.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// An error of the PostgreSQL driver.
    #[error(transparent)]
    Pg(#[from] tokio_postgres::Error),
    /// No connection could be had (pool, URL, runtime).
    #[error("{0}")]
    Pool(String),
    /// A single-row query found no row.
    #[error("the query returned no rows")]
    NoRows,
    /// A column's value has a type the caller cannot take (text read as a number, a
    /// number out of range).
    #[error("column {index}: {message}")]
    Column {
        /// The column's index in the row.
        index: usize,
        /// What was wrong.
        message: String,
    },
    /// A parameter cannot be stored (an integer beyond the database's 64-bit range).
    #[error("parameter: {0}")]
    Parameter(String),
}

impl DbError {
    /// A column's value that could not be decoded (also for a caller's own decoding, say
    /// an enum stored as text).
    pub(crate) fn column(index: usize, message: impl std::fmt::Display) -> Self {
        DbError::Column {
            index,
            message: message.to_string(),
        }
    }

    /// A single-row query found no row.
    pub(crate) fn is_no_rows(&self) -> bool {
        matches!(
            self,
            DbError::NoRows | DbError::Sqlite(rusqlite::Error::QueryReturnedNoRows)
        )
    }

    /// A uniqueness (or other) constraint refused the write.
    pub(crate) fn is_constraint_violation(&self) -> bool {
        match self {
            DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::ConstraintViolation
            }
            // Class 23: integrity constraint violation.
            DbError::Pg(e) => e.code().is_some_and(|c| c.code().starts_with("23")),
            _ => false,
        }
    }

    /// The database was locked by another connection past the wait.
    pub(crate) fn is_busy(&self) -> bool {
        matches!(self, DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::DatabaseBusy)
    }

    /// The driver's message, without the statement's text.
    pub fn message(&self) -> String {
        match self {
            DbError::Sqlite(rusqlite::Error::SqlInputError { error, msg, .. }) => {
                format!("{error}: {msg}")
            }
            DbError::Pg(e) => match e.as_db_error() {
                Some(d) => server_said(d),
                None => e.to_string(),
            },
            other => other.to_string(),
        }
    }
}

/// What the PostgreSQL server said: `FATAL (3D000): database "x" does not exist`.
pub(crate) fn server_said(d: &tokio_postgres::error::DbError) -> String {
    format!("{} ({}): {}", d.severity(), d.code().code(), d.message())
}
