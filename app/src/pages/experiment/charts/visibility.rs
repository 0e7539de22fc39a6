//! Whether a panel is on screen (an `IntersectionObserver`), so only panels the user can
//! see fetch their series: fifty metrics of twenty runs cost what the first screen shows.

use leptos::html::Section;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

/// How far outside the viewport a panel already counts as visible (it starts loading just
/// before it scrolls in).
const MARGIN: &str = "300px 0px";

type Observer = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

/// `true` while `target` is within [`MARGIN`] of the viewport.
pub fn use_visible(target: NodeRef<Section>) -> ReadSignal<bool> {
    let (visible, set_visible) = signal(false);
    let observer = StoredValue::new_local(None::<Observer>);
    Effect::new(move |_| {
        let Some(el) = target.get() else {
            return;
        };
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(last) = entries.iter().last() {
                let entry: IntersectionObserverEntry = last.unchecked_into();
                set_visible.try_set(entry.is_intersecting());
            }
        });
        let opts = IntersectionObserverInit::new();
        opts.set_root_margin(MARGIN);
        match IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &opts) {
            Ok(obs) => {
                obs.observe(&el);
                observer.update_value(|o| {
                    if let Some((old, _)) = o.take() {
                        old.disconnect();
                    }
                    *o = Some((obs, cb));
                });
            }
            // No observer (a very old browser): every panel loads.
            Err(_) => set_visible.set(true),
        }
    });
    on_cleanup(move || {
        observer.try_update_value(|o| {
            if let Some((obs, _)) = o.take() {
                obs.disconnect();
            }
        });
    });
    visible
}
