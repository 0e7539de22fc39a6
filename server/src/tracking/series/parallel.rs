//! A chart's larger reads split over two connections: a connection runs one statement at
//! a time on one core (a PostgreSQL session's server process; SQLite, the calling
//! thread), and a chart's reads are many index probes (one or a few per column boundary
//! and level, see [`super::cover`]), so two connections probing half each take about half
//! the time when a core is free. The second connection is taken only when the pool has
//! one free right now ([`Conn::sibling`]), so a busy server reads as before, on the
//! request's own connection.
//!
//! Each connection reads in its own snapshot, as the chart's statements already did one
//! after the other.

use crate::db::Conn;
use crate::Error;

/// Reads of fewer items (parents, blocks, ranges) stay on one connection: a probe costs
/// a few microseconds, a second connection's thread and round trip about a tenth of a
/// millisecond.
pub(super) const SPLIT_AT: usize = 128;

/// `first` on `c` and `second` on a sibling of `c` at the same time, or both on `c`, one
/// after the other, when `split` is false or no sibling is free.
pub(super) fn both<A, B>(
    c: &Conn,
    split: bool,
    first: impl FnOnce(&Conn) -> Result<A, Error>,
    second: impl FnOnce(&Conn) -> Result<B, Error> + Send,
) -> Result<(A, B), Error>
where
    B: Send,
{
    let Some(other) = split.then(|| c.sibling()).flatten() else {
        let a = first(c)?;
        return Ok((a, second(c)?));
    };
    let (a, b) = std::thread::scope(|s| {
        let handle = s.spawn(move || second(&other));
        let a = first(c);
        (a, handle.join())
    });
    let b = b.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    Ok((a?, b?))
}

/// `read` over `items`, as two halves read at once ([`both`]) when there are at least
/// [`SPLIT_AT`] of them: the first half's results, then the second's.
pub(super) fn split_read<I, T, F>(c: &Conn, items: &[I], read: F) -> Result<Vec<T>, Error>
where
    I: Sync,
    T: Send,
    F: Fn(&Conn, &[I]) -> Result<Vec<T>, Error> + Sync,
{
    let (lo, hi) = items.split_at(items.len() / 2);
    let read = &read;
    let (mut a, b) = both(
        c,
        items.len() >= SPLIT_AT,
        |c| read(c, lo),
        move |c| read(c, hi),
    )?;
    a.extend(b);
    Ok(a)
}
