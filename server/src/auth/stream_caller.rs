//! The caller of an open stream (log follow, experiment live), checked again as the stream
//! goes: every [`RECHECK`], in one pooled call, that the credential it was opened with
//! still lets a new request in ([`recheck`]: token not revoked, session not ended,
//! password unchanged, account enabled) and that the stream's own access rule still allows
//! that caller (grants, groups, admin flag). A credential that no longer holds fails the
//! check with `Error::Unauthenticated`; the stream then ends (the app API tells the page
//! so before it does).

use std::time::Duration;

use super::proof::Proof;
use super::resolve::recheck;
use super::Caller;
use crate::db::Conn;
use crate::{Error, Store};

/// How often an open stream checks its caller again.
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

/// An open stream's credential and the store to check it in.
#[derive(Clone)]
pub(crate) struct StreamCaller {
    proof: Proof,
    store: Store,
}

impl StreamCaller {
    /// The caller of a stream opened with `proof`.
    pub(crate) fn new(store: &Store, proof: Proof) -> Self {
        StreamCaller {
            proof,
            store: store.clone(),
        }
    }

    /// The caller as a new request with the same credential would be let in now, then
    /// `access` (the stream's rule) for them; `Unauthenticated` when the credential no
    /// longer holds, the rule's refusal when access is gone.
    pub(crate) async fn check<T, F>(&self, access: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Conn, &Caller) -> Result<T, Error> + Send + 'static,
    {
        let proof = self.proof.clone();
        self.store
            .call(move |c| {
                let who = recheck(c, &proof, crate::util::now_ms())?;
                access(c, &who)
            })
            .await
    }
}
