//! The tracking domain: experiments, runs, params, tags and metrics, with MLflow's rules,
//! as queries against the store. Both API dialects call into here.
