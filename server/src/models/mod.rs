//! MLflow 3's logged models and the inputs and outputs of runs: the datasets a run used
//! (`runs/log-inputs`), the logged models it took or produced. Domain types and their SQL;
//! the MLflow dialect (`crate::mlflow`) and the app API read and write through here.
//!
//! Offers [`logged`] (logged models), and to the crate `inputs` (a run's dataset and model
//! inputs and outputs), `registrations` and `search`.

pub(crate) mod inputs;
pub mod logged;
pub(crate) mod registrations;
pub(crate) mod search;
