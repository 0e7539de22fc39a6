//! The agent's HTTP API through its real router: tokens, `since`, the simulated flag, the
//! no-driver path, and `/metrics` read back by a real Prometheus text-format parser.

use std::sync::{Arc, RwLock};

use agent::gpu::simulated::SimulatedSource;
use agent::gpu::{or_no_driver, GpuError, NVML_NOT_FOUND};
use agent::http::{router, AppState};
use agent::node::{Node, Sampler, SharedNode};
use agent::ring::Ring;
use api_types::agent::{DriverStatus, GpuSample, HostSample, NodeSample, NodeSnapshot};
use api_types::ApiError;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use prometheus_parse::{Sample, Scrape, Value};
use tower::ServiceExt;

const TOKEN: &str = "s3cret";
const GIB: u64 = 1024 * 1024 * 1024;

fn gpu(index: u32, temperature: Option<u32>) -> GpuSample {
    GpuSample {
        index,
        name: Some("NVIDIA A100-SXM4-80GB".into()),
        uuid: Some(format!("GPU-0000000{index}")),
        utilization_percent: Some(40 + index),
        memory_used_bytes: Some(3 * GIB + 1024),
        memory_total_bytes: Some(80 * GIB),
        temperature_celsius: temperature,
        power_draw_watts: Some(212.5),
        power_limit_watts: Some(400.0),
        processes: None,
        simulated: false,
    }
}

fn sample(at_ms: i64) -> NodeSample {
    NodeSample {
        at_ms,
        gpus: vec![gpu(0, Some(61)), gpu(1, None)],
        host: HostSample {
            cpu_percent: 12.5,
            memory_used_bytes: 2 * GIB,
            memory_total_bytes: 16 * GIB,
            ..HostSample::default()
        },
    }
}

/// A node with a driver and samples at 1000, 2000, 3000 ms.
fn fixed_node() -> SharedNode {
    let mut ring = Ring::new(10);
    for at in [1000, 2000, 3000] {
        ring.push(sample(at));
    }
    Arc::new(RwLock::new(Node {
        name: "node-a".into(),
        driver: DriverStatus::Available {
            version: Some("550.54.15".into()),
        },
        simulated: false,
        ring,
    }))
}

/// A node fed by a real sampler over `sampler`'s source, sampled twice.
fn sampled_node(mut sampler: Sampler) -> SharedNode {
    let mut node = sampler.node("node-b".into(), 10);
    node.ring.push(sampler.sample(1_000));
    node.ring.push(sampler.sample(2_000));
    Arc::new(RwLock::new(node))
}

async fn get(
    node: &SharedNode,
    metrics_token: Option<&str>,
    uri: &str,
    bearer: Option<&str>,
) -> (StatusCode, Option<String>, String) {
    let app = router(AppState::new(Arc::clone(node), TOKEN, metrics_token));
    let mut request = Request::get(uri);
    if let Some(token) = bearer {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = app
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let challenge = response
        .headers()
        .get(header::WWW_AUTHENTICATE)
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, challenge, String::from_utf8(body.to_vec()).unwrap())
}

async fn snapshot(node: &SharedNode, uri: &str) -> NodeSnapshot {
    let (status, _, body) = get(node, None, uri, Some(TOKEN)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn scrape(text: &str) -> Vec<Sample> {
    let lines = text.lines().map(|line| Ok(line.to_owned()));
    Scrape::parse(lines).unwrap().samples
}

fn gauge(samples: &[Sample], metric: &str, gpu: &str) -> Option<f64> {
    let found = samples
        .iter()
        .find(|s| s.metric == metric && s.labels.get("gpu").unwrap_or("") == gpu)?;
    match found.value {
        Value::Gauge(v) | Value::Untyped(v) => Some(v),
        ref other => panic!("{metric} is not a gauge: {other:?}"),
    }
}

#[tokio::test]
async fn gpus_requires_the_bearer_token() {
    let node = fixed_node();
    for bearer in [None, Some("wrong"), Some("s3cret-but-longer")] {
        let (status, challenge, body) = get(&node, None, "/v1/gpus", bearer).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{bearer:?}");
        assert_eq!(challenge.as_deref(), Some("Bearer"));
        let error: ApiError = serde_json::from_str(&body).unwrap();
        assert_eq!(error.code.as_str(), "UNAUTHENTICATED");
    }
    let snap = snapshot(&node, "/v1/gpus").await;
    assert_eq!(snap.node, "node-a");
    assert_eq!(snap.at_ms, Some(3000));
    assert_eq!(snap.gpus, sample(3000).gpus);
    assert_eq!(snap.host, Some(sample(3000).host));
}

#[tokio::test]
async fn since_returns_only_later_history() {
    let node = fixed_node();
    let times = |snap: NodeSnapshot| snap.history.iter().map(|s| s.at_ms).collect::<Vec<_>>();
    assert!(times(snapshot(&node, "/v1/gpus").await).is_empty());
    assert_eq!(
        times(snapshot(&node, "/v1/gpus?since=1999").await),
        [2000, 3000]
    );
    assert_eq!(times(snapshot(&node, "/v1/gpus?since=2000").await), [3000]);
    assert!(times(snapshot(&node, "/v1/gpus?since=3000").await).is_empty());
    let (status, _, body) = get(&node, None, "/v1/gpus?since=yesterday", Some(TOKEN)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.code.as_str(), "INVALID_PARAMETER");
}

#[tokio::test]
async fn simulated_gpus_are_flagged() {
    let node = sampled_node(Sampler::new(Box::new(SimulatedSource::new(3, 42))));
    let snap = snapshot(&node, "/v1/gpus?since=0").await;
    assert!(snap.simulated);
    assert_eq!(snap.gpus.len(), 3);
    assert!(snap.gpus.iter().all(|g| g.simulated));
    assert_eq!(snap.history.len(), 2);
    let (_, _, text) = get(&node, None, "/metrics", None).await;
    assert_eq!(
        gauge(&scrape(&text), "runlens_agent_simulated", ""),
        Some(1.0)
    );
}

#[tokio::test]
async fn without_nvml_the_host_is_still_served_and_the_driver_is_missing() {
    let init: Result<SimulatedSource, _> = Err(GpuError::NotFound("libnvidia-ml.so.1".into()));
    let node = sampled_node(Sampler::new(or_no_driver(init)));
    let snap = snapshot(&node, "/v1/gpus").await;
    assert_eq!(
        snap.driver,
        DriverStatus::Missing {
            reason: NVML_NOT_FOUND.into()
        }
    );
    assert!(snap.gpus.is_empty() && !snap.simulated);
    assert!(snap.host.is_some_and(|h| h.memory_total_bytes > 0));

    let (status, _, text) = get(&node, None, "/metrics", None).await;
    assert_eq!(status, StatusCode::OK);
    let samples = scrape(&text);
    assert!(samples.iter().all(|s| !s.metric.starts_with("DCGM_")));
    assert!(gauge(&samples, "runlens_host_memory_total_bytes", "").is_some_and(|v| v > 0.0));
    assert_eq!(
        gauge(&samples, "runlens_agent_driver_available", ""),
        Some(0.0)
    );
}

#[tokio::test]
async fn metrics_use_dcgm_names_labels_and_units() {
    let node = fixed_node();
    let (status, _, text) = get(&node, None, "/metrics", None).await;
    assert_eq!(status, StatusCode::OK);
    let samples = scrape(&text);

    assert_eq!(gauge(&samples, "DCGM_FI_DEV_GPU_UTIL", "0"), Some(40.0));
    assert_eq!(gauge(&samples, "DCGM_FI_DEV_GPU_UTIL", "1"), Some(41.0));
    assert_eq!(
        gauge(&samples, "DCGM_FI_DEV_FB_USED", "0"),
        Some(3.0 * 1024.0)
    );
    // Whole MiB, rounded down, as dcgm-exporter reports them (used is 3 GiB + 1 KiB).
    assert_eq!(
        gauge(&samples, "DCGM_FI_DEV_FB_FREE", "0"),
        Some(77.0 * 1024.0 - 1.0)
    );
    assert_eq!(gauge(&samples, "DCGM_FI_DEV_POWER_USAGE", "1"), Some(212.5));
    assert_eq!(gauge(&samples, "DCGM_FI_DEV_GPU_TEMP", "0"), Some(61.0));
    // GPU 1 could not report its temperature: no line, the rest still there.
    assert_eq!(gauge(&samples, "DCGM_FI_DEV_GPU_TEMP", "1"), None);
    assert_eq!(gauge(&samples, "runlens_host_cpu_percent", ""), Some(12.5));

    let util = samples
        .iter()
        .find(|s| s.metric == "DCGM_FI_DEV_GPU_UTIL" && s.labels.get("gpu") == Some("1"))
        .unwrap();
    for (label, value) in [
        ("UUID", "GPU-00000001"),
        ("device", "nvidia1"),
        ("modelName", "NVIDIA A100-SXM4-80GB"),
        ("Hostname", "node-a"),
    ] {
        assert_eq!(util.labels.get(label), Some(value), "{label}");
    }
    assert!(!text.contains("python"), "no process names in /metrics");
}

#[tokio::test]
async fn metrics_token_guards_metrics_when_set() {
    let node = fixed_node();
    let (status, _, _) = get(&node, Some("m"), "/metrics", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = get(&node, Some("m"), "/metrics", Some(TOKEN)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, text) = get(&node, Some("m"), "/metrics", Some("m")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(text.contains("DCGM_FI_DEV_GPU_UTIL{"));
}

#[tokio::test]
async fn metrics_count_the_answered_gpus_requests() {
    let app = router(AppState::new(fixed_node(), TOKEN, None));
    let call = |uri: &str, bearer: Option<&str>| {
        let mut request = Request::get(uri);
        if let Some(token) = bearer {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        app.clone().oneshot(request.body(Body::empty()).unwrap())
    };
    for bearer in [Some(TOKEN), Some(TOKEN), Some("wrong"), None] {
        call("/v1/gpus", bearer).await.unwrap();
    }
    let response = call("/metrics", None).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let samples = scrape(std::str::from_utf8(&body).unwrap());
    let served = samples
        .iter()
        .find(|s| s.metric == "runlens_agent_gpus_requests_total")
        .expect("the counter");
    // Only the two answered requests count, not the refused ones.
    assert!(
        matches!(served.value, Value::Counter(v) if v == 2.0),
        "{served:?}"
    );
    assert_eq!(served.labels.get("Hostname"), Some("node-a"));
}
