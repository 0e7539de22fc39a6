//! The model registry (`/registered-models...`, `/model-versions...`) and its permissions
//! (`/registered-models/permissions/...`, and the `registered_model` resource of MLflow 3's
//! `users/permissions/*`), over `crate::registry`.

mod models;
mod permissions;
pub(crate) mod policy;
mod versions;
mod wire;

pub(crate) use permissions::{get_user, grant_user, revoke_user};

use api_types::Level::{CanEdit as Edit, CanManage as Manage, CanRead as Read};

use crate::routes::{Access, MlflowPolicy as Policy, Route};

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    use Policy::{CreateModelVersion, Filtered, RegisteredModel as Rm, SignedIn};
    let m = Access::Mlflow;
    vec![
        Route::post("/registered-models/create", m(SignedIn), models::create),
        Route::get("/registered-models/get", m(Rm(Read)), models::get),
        Route::patch("/registered-models/update", m(Rm(Edit)), models::update),
        Route::post("/registered-models/rename", m(Rm(Edit)), models::rename),
        Route::delete("/registered-models/delete", m(Rm(Manage)), models::delete),
        Route::get("/registered-models/search", m(Filtered), models::search),
        Route::post(
            "/registered-models/get-latest-versions",
            m(Rm(Read)),
            models::latest_versions,
        ),
        Route::get(
            "/registered-models/get-latest-versions",
            m(Rm(Read)),
            models::latest_versions,
        ),
        Route::post("/registered-models/set-tag", m(Rm(Edit)), models::set_tag),
        Route::delete(
            "/registered-models/delete-tag",
            m(Rm(Edit)),
            models::delete_tag,
        ),
        Route::post("/registered-models/alias", m(Rm(Edit)), models::set_alias),
        Route::delete(
            "/registered-models/alias",
            m(Rm(Manage)),
            models::delete_alias,
        ),
        Route::get(
            "/registered-models/alias",
            m(Rm(Read)),
            models::get_by_alias,
        ),
        Route::post(
            "/model-versions/create",
            m(CreateModelVersion),
            versions::create,
        ),
        Route::get("/model-versions/get", m(Rm(Read)), versions::get),
        Route::patch("/model-versions/update", m(Rm(Edit)), versions::update),
        Route::post(
            "/model-versions/transition-stage",
            m(Rm(Edit)),
            versions::transition_stage,
        ),
        Route::delete("/model-versions/delete", m(Rm(Manage)), versions::delete),
        Route::get("/model-versions/search", m(Filtered), versions::search),
        Route::get(
            "/model-versions/get-download-uri",
            m(Rm(Read)),
            versions::download_uri,
        ),
        Route::post("/model-versions/set-tag", m(Rm(Edit)), versions::set_tag),
        Route::delete(
            "/model-versions/delete-tag",
            m(Rm(Manage)),
            versions::delete_tag,
        ),
        Route::post(
            "/registered-models/permissions/create",
            m(Rm(Manage)),
            permissions::create,
        ),
        Route::get(
            "/registered-models/permissions/get",
            m(Rm(Manage)),
            permissions::get,
        ),
        Route::patch(
            "/registered-models/permissions/update",
            m(Rm(Manage)),
            permissions::update,
        ),
        Route::delete(
            "/registered-models/permissions/delete",
            m(Rm(Manage)),
            permissions::delete,
        ),
    ]
}
