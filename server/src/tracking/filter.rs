//! Tokenizer and parser of MLflow's search grammar, shared by runs and experiments search:
//! `<ident> <comparator> <value> [AND ...]` and order_by clauses `<ident> [ASC|DESC]`.
//! The result is a small AST; `search` and `experiment_search` give it meaning.

use crate::Error;

/// A comparator of a filter clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `LIKE` (case-sensitive)
    Like,
    /// `ILIKE` (case-insensitive)
    ILike,
    /// `IN (...)`
    In,
    /// `NOT IN (...)`
    NotIn,
}

impl Op {
    /// The comparator as written in MLflow's grammar.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Like => "LIKE",
            Op::ILike => "ILIKE",
            Op::In => "IN",
            Op::NotIn => "NOT IN",
        }
    }

    /// True for `= != < <= > >=`.
    pub(crate) fn is_numeric(self) -> bool {
        matches!(self, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge)
    }
}

/// An identifier: an optional entity prefix (`metrics`, `params`, ...; lower-cased) and a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ident {
    /// The prefix before the first dot, lower-cased; `None` when absent.
    pub kind: Option<String>,
    /// The key (quotes removed).
    pub key: String,
}

/// A literal on the right of a comparator.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    /// An unquoted number.
    Number(f64),
    /// A quoted string.
    Str(String),
    /// A parenthesised list of quoted strings (for IN / NOT IN).
    List(Vec<String>),
}

/// One `ident op value` clause.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clause {
    /// Left side.
    pub ident: Ident,
    /// Comparator.
    pub op: Op,
    /// Right side.
    pub value: Literal,
}

/// Most AND-ed comparisons in one filter.
pub(crate) const MAX_CLAUSES: usize = 100;
/// Most values in all of a filter's IN lists together.
pub(crate) const MAX_IN_VALUES: usize = 10_000;
/// Most order_by keys in one search.
pub(crate) const MAX_ORDER_BY: usize = 10;

/// `text`, shortened for an error message (a request may send megabytes of it).
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Refuses more than [`MAX_ORDER_BY`] order_by keys.
pub(crate) fn check_order_by_len(order_by: &[String]) -> Result<(), Error> {
    if order_by.len() > MAX_ORDER_BY {
        return Err(Error::InvalidParameter(format!(
            "Invalid value for parameter 'order_by': at most {MAX_ORDER_BY} order_by keys are \
             supported, got {}.",
            order_by.len()
        )));
    }
    Ok(())
}

/// Parses a filter string into its AND-ed clauses ("" or blank = no clause); at most
/// [`MAX_CLAUSES`] comparisons and [`MAX_IN_VALUES`] IN-list values.
pub(crate) fn parse_filter(filter: &str) -> Result<Vec<Clause>, Error> {
    let err = |why: String| {
        Error::InvalidParameter(format!("Invalid filter '{}': {why}", excerpt(filter)))
    };
    let mut in_values = 0usize;
    let mut lx = Lexer::new(filter);
    let mut clauses = Vec::new();
    lx.skip_ws();
    if lx.at_end() {
        return Ok(clauses);
    }
    loop {
        let ident = lx.ident().map_err(err)?;
        let op = lx.op().map_err(err)?;
        let value = lx.literal(op).map_err(err)?;
        if let Literal::List(items) = &value {
            in_values += items.len();
            if in_values > MAX_IN_VALUES {
                return Err(err(format!(
                    "IN lists may hold at most {MAX_IN_VALUES} values in all"
                )));
            }
        }
        clauses.push(Clause { ident, op, value });
        if clauses.len() > MAX_CLAUSES {
            return Err(err(format!(
                "a filter may have at most {MAX_CLAUSES} comparisons"
            )));
        }
        lx.skip_ws();
        if lx.at_end() {
            return Ok(clauses);
        }
        match lx.word() {
            Some(w) if w.eq_ignore_ascii_case("and") => {}
            Some(w) if w.eq_ignore_ascii_case("or") => {
                return Err(err("OR is not supported; only AND".into()))
            }
            _ => return Err(err(format!("unexpected text at '{}'", excerpt(lx.rest())))),
        }
    }
}

/// Parses one order_by clause: `<ident> [ASC|DESC]`; returns the identifier and `ascending`.
pub(crate) fn parse_order_by(clause: &str) -> Result<(Ident, bool), Error> {
    let err = |why: String| {
        Error::InvalidParameter(format!(
            "Invalid order_by clause '{}': {why}",
            excerpt(clause)
        ))
    };
    let mut lx = Lexer::new(clause);
    let ident = lx.ident().map_err(err)?;
    lx.skip_ws();
    let ascending = match lx.word() {
        None => true,
        Some(w) if w.eq_ignore_ascii_case("asc") => true,
        Some(w) if w.eq_ignore_ascii_case("desc") => false,
        Some(w) => return Err(err(format!("expected ASC or DESC, found '{w}'"))),
    };
    lx.skip_ws();
    if !lx.at_end() {
        return Err(err(format!("unexpected text at '{}'", lx.rest())));
    }
    Ok((ident, ascending))
}

/// A cursor over the input characters.
struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// Consumes characters while `pred` holds.
    fn take_while(&mut self, pred: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&pred) {
            self.bump();
        }
        &self.src[start..self.pos]
    }

    /// A bare word of letters, digits and underscores, if any.
    fn word(&mut self) -> Option<&'a str> {
        let w = self.take_while(|c| c.is_alphanumeric() || c == '_');
        (!w.is_empty()).then_some(w)
    }

    /// A string quoted with `q` (the opening quote is next); a doubled quote escapes it.
    fn quoted(&mut self) -> Result<String, String> {
        let q = self.bump().ok_or("expected a quote")?;
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(format!("unterminated {q}-quoted string")),
                Some(c) if c == q && self.peek() == Some(q) => {
                    self.bump();
                    out.push(q);
                }
                Some(c) if c == q => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }

    fn ident(&mut self) -> Result<Ident, String> {
        self.skip_ws();
        if matches!(self.peek(), Some('`' | '"')) {
            return Ok(Ident {
                kind: None,
                key: self.quoted()?,
            });
        }
        let word = self
            .word()
            .ok_or_else(|| format!("expected an identifier at '{}'", self.rest()))?;
        if self.peek() != Some('.') {
            return Ok(Ident {
                kind: None,
                key: word.to_string(),
            });
        }
        self.bump();
        let key = if matches!(self.peek(), Some('`' | '"')) {
            self.quoted()?
        } else {
            let k = self.take_while(|c| !c.is_whitespace() && !"=!<>(),'\"`".contains(c));
            k.to_string()
        };
        if key.is_empty() {
            return Err(format!("missing key after '{word}.'"));
        }
        Ok(Ident {
            kind: Some(word.to_ascii_lowercase()),
            key,
        })
    }

    fn op(&mut self) -> Result<Op, String> {
        self.skip_ws();
        for (sym, op) in [
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("=", Op::Eq),
        ]
        .into_iter()
        .chain([("<", Op::Lt), (">", Op::Gt)])
        {
            if self.rest().starts_with(sym) {
                self.pos += sym.len();
                return Ok(op);
            }
        }
        let word = self.word().unwrap_or_default().to_ascii_uppercase();
        match word.as_str() {
            "LIKE" => Ok(Op::Like),
            "ILIKE" => Ok(Op::ILike),
            "IN" => Ok(Op::In),
            "NOT" => {
                self.skip_ws();
                match self.word() {
                    Some(w) if w.eq_ignore_ascii_case("in") => Ok(Op::NotIn),
                    _ => Err("expected IN after NOT".to_string()),
                }
            }
            _ => Err(format!("expected a comparator at '{}'", self.rest())),
        }
    }

    fn literal(&mut self, op: Op) -> Result<Literal, String> {
        self.skip_ws();
        if matches!(op, Op::In | Op::NotIn) {
            return self.list().map(Literal::List);
        }
        match self.peek() {
            Some('\'' | '"') => Ok(Literal::Str(self.quoted()?)),
            Some(_) => {
                let raw = self.take_while(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
                raw.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && raw.chars().any(|c| c.is_ascii_digit()))
                    .map(Literal::Number)
                    .ok_or_else(|| format!("expected a number or a quoted string, found '{raw}'"))
            }
            None => Err("missing value".to_string()),
        }
    }

    fn list(&mut self) -> Result<Vec<String>, String> {
        if self.bump() != Some('(') {
            return Err("expected '(' after IN".to_string());
        }
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(')') if items.is_empty() => {
                    self.bump();
                    return Ok(items);
                }
                Some('\'' | '"') => items.push(self.quoted()?),
                _ => return Err("IN lists hold quoted strings".to_string()),
            }
            self.skip_ws();
            match self.bump() {
                Some(',') => {}
                Some(')') => return Ok(items),
                _ => return Err("expected ',' or ')' in IN list".to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests;
