//! `runlens-agent run ... -- CMD` against the real server: the run, its tag and system
//! metrics read back through the MLflow API, the environment and output of the command,
//! exit codes, signals, the stock mlflow client inside CMD, and a server that goes away
//! mid-run.

use std::time::Duration;

use crate::helpers::{eventually, metric_keys, tag, venv_python, Agent, TestServer};

/// `runlens-agent run` against `server` into experiment `exp` as node `node-a` (1 s
/// interval, 2 simulated GPUs), running `cmd`.
fn run_agent(server: &TestServer, exp: &str, extra: &[&str], cmd: &[&str]) -> Agent {
    let url = server.url();
    let mut args = vec![
        "run",
        "--server",
        &url,
        "--token",
        &server.token,
        "--experiment",
        exp,
        "--node-name",
        "node-a",
        "--interval-secs",
        "1",
        "--simulate-gpus",
        "2",
    ];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(cmd);
    Agent::start(&args)
}

#[test]
fn a_run_gets_the_nodes_tag_system_metrics_and_the_commands_environment() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let script = "echo \"run=$MLFLOW_RUN_ID exp=$MLFLOW_EXPERIMENT_ID \
                  uri=$MLFLOW_TRACKING_URI token=$MLFLOW_TRACKING_TOKEN\"; \
                  echo to-stderr >&2; sleep 4.5";
    let mut agent = run_agent(
        &server,
        "agent-metrics",
        &["--run-name", "first"],
        &["sh", "-c", script],
    );
    let status = agent.wait(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());

    let run = server.only_run("agent-metrics");
    let info = &run["info"];
    let run_id = info["run_id"].as_str().unwrap();
    assert_eq!(info["status"], "FINISHED");
    assert_eq!(info["run_name"], "first");
    assert!(info["end_time"].as_i64().unwrap() >= info["start_time"].as_i64().unwrap());
    assert_eq!(tag(&run, "runlens.nodes"), Some("node-a"));

    // The command saw the run and the server, and its output went through unchanged.
    let stdout = agent.stdout();
    let exp_id = info["experiment_id"].as_str().unwrap();
    assert_eq!(
        stdout.trim(),
        format!(
            "run={run_id} exp={exp_id} uri={} token={}",
            server.url(),
            server.token
        )
    );
    assert!(agent.stderr().contains("to-stderr\n"), "{}", agent.stderr());

    // MLflow's system metric names, per node, plus the temperature.
    let mut want: Vec<String> = [
        "cpu_utilization_percentage",
        "system_memory_usage_megabytes",
        "system_memory_usage_percentage",
        "disk_usage_percentage",
        "disk_usage_megabytes",
        "disk_available_megabytes",
        "network_receive_megabytes",
        "network_transmit_megabytes",
    ]
    .iter()
    .map(|m| format!("system/node-a/{m}"))
    .collect();
    for gpu in 0..2 {
        for m in [
            "utilization_percentage",
            "memory_usage_megabytes",
            "memory_usage_percentage",
            "power_usage_watts",
            "power_usage_percentage",
            "temperature_celsius",
        ] {
            want.push(format!("system/node-a/gpu_{gpu}_{m}"));
        }
    }
    want.sort();
    assert_eq!(metric_keys(&run), want);

    // One step per sample, from 0, like MLflow's monitor; values in range.
    let util = server.history(run_id, "system/node-a/gpu_1_utilization_percentage");
    let steps: Vec<i64> = util.iter().map(|(step, _)| *step).collect();
    assert!(steps.len() >= 3, "{util:?}");
    assert_eq!(steps, (0..steps.len() as i64).collect::<Vec<_>>());
    assert!(util.iter().all(|(_, v)| (0.0..=100.0).contains(v)));
    let memory = server.history(run_id, "system/node-a/gpu_0_memory_usage_percentage");
    assert!(
        memory.iter().all(|(_, v)| *v > 0.0 && *v < 100.0),
        "{memory:?}"
    );
}

#[test]
fn the_exit_code_passes_through_and_a_failure_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let mut agent = run_agent(&server, "agent-exit", &[], &["sh", "-c", "exit 3"]);
    assert_eq!(agent.wait(Duration::from_secs(30)).code(), Some(3));
    let run = server.only_run("agent-exit");
    assert_eq!(run["info"]["status"], "FAILED");

    let mut missing = run_agent(&server, "agent-exit", &[], &["/nonexistent/cmd"]);
    assert_eq!(missing.wait(Duration::from_secs(30)).code(), Some(127));
    let runs = server.runs_of("agent-exit");
    assert_eq!(runs.len(), 2);
    assert!(
        runs.iter().all(|r| r["info"]["status"] == "FAILED"),
        "{runs:?}"
    );
    assert!(missing.stderr().contains("cannot run /nonexistent/cmd"));
}

#[test]
fn sigterm_reaches_the_command_and_the_run_ends_killed() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let pidfile = dir.path().join("child.pid");
    let script = format!("echo $$ > {}; exec sleep 60", pidfile.display());
    let mut agent = run_agent(&server, "agent-signal", &[], &["sh", "-c", &script]);
    let child_pid: u32 = eventually(Duration::from_secs(30), "the command to start", || {
        std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok()
    });
    agent.signal("TERM");
    let status = agent.wait(Duration::from_secs(30));
    assert_eq!(status.code(), Some(128 + 15), "{}", agent.stderr());
    assert!(
        !std::path::Path::new(&format!("/proc/{child_pid}")).exists(),
        "the command is still running"
    );
    let run = server.only_run("agent-signal");
    assert_eq!(run["info"]["status"], "KILLED");
    assert!(run["info"]["end_time"].as_i64().is_some());
}

#[test]
fn the_stock_mlflow_client_in_the_command_logs_into_the_same_run() {
    let Some(python) = venv_python() else {
        eprintln!("SKIPPED: no .venv/bin/python with mlflow (run scripts/install-tools.sh)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let python = python.display().to_string();
    let code = "import mlflow, time; mlflow.log_metric('loss', 0.25, step=4); \
                mlflow.set_tag('from', 'inside'); time.sleep(1.5)";
    let mut agent = run_agent(&server, "agent-mlflow", &[], &[&python, "-c", code]);
    let status = agent.wait(Duration::from_secs(120));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());
    let run = server.only_run("agent-mlflow");
    let run_id = run["info"]["run_id"].as_str().unwrap();
    assert_eq!(run["info"]["status"], "FINISHED");
    assert_eq!(server.history(run_id, "loss"), [(4, 0.25)]);
    assert_eq!(tag(&run, "from"), Some("inside"));
    assert_eq!(tag(&run, "runlens.nodes"), Some("node-a"));
    let keys = metric_keys(&run);
    assert!(
        keys.iter()
            .any(|k| k == "system/node-a/gpu_0_utilization_percentage"),
        "{keys:?}"
    );
}

#[test]
fn metrics_sampled_while_the_server_is_down_arrive_after_it_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = TestServer::start(dir.path());
    // At a 1 s interval the agent logs every 5 s: once with the server up, then (down) it
    // says so once, and once the server is back the backlog goes.
    let mut agent = run_agent(&server, "agent-outage", &[], &["sleep", "20"]);
    let run_id = eventually(Duration::from_secs(30), "the first samples", || {
        let run = server.runs_of("agent-outage").into_iter().next()?;
        let keys = metric_keys(&run);
        keys.iter()
            .any(|k| k.ends_with("cpu_utilization_percentage"))
            .then(|| run["info"]["run_id"].as_str().map(str::to_owned))?
    });
    server.stop();
    eventually(Duration::from_secs(15), "a failed log call", || {
        agent
            .stderr()
            .contains("cannot log system metrics")
            .then_some(())
    });
    assert!(
        agent.is_running(),
        "the command must go on without the server"
    );
    let server = server.restart();
    let status = agent.wait(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());
    let stderr = agent.stderr();
    assert_eq!(
        stderr.matches("cannot log system metrics").count(),
        1,
        "one line when logging starts failing:\n{stderr}"
    );
    assert_eq!(
        stderr.matches("logging system metrics recovered").count(),
        1,
        "{stderr}"
    );
    let steps: Vec<i64> = server
        .history(&run_id, "system/node-a/cpu_utilization_percentage")
        .iter()
        .map(|(step, _)| *step)
        .collect();
    assert!(steps.len() >= 18, "{steps:?}");
    assert_eq!(steps, (0..steps.len() as i64).collect::<Vec<_>>(), "no gap");
    assert_eq!(
        server.only_run("agent-outage")["info"]["status"],
        "FINISHED"
    );
}

#[test]
fn without_a_server_at_start_the_command_does_not_run_and_the_agent_exits_125() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let url = format!("http://127.0.0.1:{}", crate::helpers::free_port());
    let script = format!("touch {}", marker.display());
    let mut agent = Agent::start(&[
        "run",
        "--server",
        &url,
        "--experiment",
        "e",
        "--node-name",
        "n",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    assert_eq!(agent.wait(Duration::from_secs(30)).code(), Some(125));
    assert!(!marker.exists(), "the command ran");
    let stderr = agent.stderr();
    assert!(
        stderr.contains("cannot start the run on") && stderr.contains("refused"),
        "{stderr}"
    );
}
