//! `runlens-agent run` as a job launcher against the real server: `--nodes 2` gives two
//! node labels with their own lines, a process failing stops the others, a failed attempt
//! is retried as a new MLflow run, a signal cancels the job run, and `--join` adds a node.

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{
    all_log_lines, eventually, files_in, job_agent, job_run_of, metric_keys, node_lines, tag,
    Agent, TestServer,
};

/// The run of `exp` whose run id is `run_id`.
fn run_by_id(server: &TestServer, exp: &str, run_id: &str) -> Value {
    server
        .runs_of(exp)
        .into_iter()
        .find(|r| r["info"]["run_id"] == run_id)
        .unwrap_or_else(|| panic!("no run {run_id} in {exp}"))
}

#[test]
fn two_nodes_run_as_two_processes_with_their_own_labels_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let script = "echo \"rank=$RANK node_rank=$NODE_RANK local=$LOCAL_RANK world=$WORLD_SIZE \
                  run=$MLFLOW_RUN_ID\"; echo \"err-$RANK\" >&2; sleep 1.5";
    let mut agent = job_agent(
        &server,
        "jobs-two",
        &["--nodes", "2", "--job", "two-nodes"],
        &["sh", "-c", script],
    );
    let status = agent.wait(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());

    let run = server.only_run("jobs-two");
    let run_id = run["info"]["run_id"].as_str().unwrap();
    assert_eq!(run["info"]["status"], "FINISHED");
    assert_eq!(tag(&run, "runlens.job"), Some("two-nodes"));
    assert_eq!(tag(&run, "runlens.attempt"), Some("1"));
    let job_run = job_run_of(&server, &run);
    assert_eq!(job_run["status"], "SUCCEEDED", "{job_run}");
    assert_eq!(job_run["nodes"], serde_json::json!(["n-0", "n-1"]));
    assert_eq!(job_run["attempts"].as_array().map(Vec::len), Some(1));

    // Both processes' output went through to the terminal.
    let stdout = agent.stdout();
    for rank in 0..2 {
        let want = format!("rank={rank} node_rank={rank} local=0 world=2 run={run_id}");
        assert!(stdout.lines().any(|l| l == want), "{want} in:\n{stdout}");
        assert!(agent.stderr().contains(&format!("err-{rank}\n")));
    }

    // Each node's lines under its own label, numbered from 0 (stdout and stderr are two
    // pipes, so their relative order is whatever the agent read first).
    let lines = all_log_lines(&server, run_id, None);
    assert_eq!(lines.len(), 4, "{lines:?}");
    for rank in 0..2 {
        let node = format!("n-{rank}");
        let mut got = node_lines(&lines, &node);
        assert_eq!(
            got.iter().map(|l| l.0).collect::<Vec<_>>(),
            [0, 1],
            "{got:?}"
        );
        got.sort_by(|a, b| a.1.cmp(&b.1));
        let want_out = format!("rank={rank} node_rank={rank} local=0 world=2 run={run_id}");
        assert_eq!(
            got.iter()
                .map(|l| (l.1.as_str(), l.2.as_str()))
                .collect::<Vec<_>>(),
            [
                ("stderr", format!("err-{rank}").as_str()),
                ("stdout", &want_out)
            ]
        );
    }

    // System metrics per node label.
    let keys = metric_keys(&run);
    for node in ["n-0", "n-1"] {
        assert!(
            keys.iter()
                .any(|k| k == &format!("system/{node}/cpu_utilization_percentage")),
            "{keys:?}"
        );
    }
    assert!(
        files_in(&agent.spool_dir()).is_empty(),
        "the spools are removed"
    );
}

#[test]
fn one_failing_process_stops_the_others_and_fails_the_job_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let script = "if [ \"$RANK\" = 1 ]; then sleep 0.5; exit 4; fi; exec sleep 60";
    let started = std::time::Instant::now();
    let mut agent = job_agent(
        &server,
        "jobs-fail",
        &["--nodes", "3"],
        &["sh", "-c", script],
    );
    let status = agent.wait(Duration::from_secs(40));
    assert_eq!(status.code(), Some(4), "{}", agent.stderr());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the other processes were not stopped"
    );
    let run = server.only_run("jobs-fail");
    assert_eq!(run["info"]["status"], "FAILED");
    assert_eq!(job_run_of(&server, &run)["status"], "FAILED");
}

#[test]
fn a_failed_attempt_is_retried_as_a_new_mlflow_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let marker = dir.path().join("tried");
    let script = format!(
        "if [ -e {m} ]; then echo second; else touch {m}; echo first; echo boom >&2; exit 3; fi",
        m = marker.display()
    );
    let mut agent = job_agent(
        &server,
        "jobs-retry",
        &["--max-retries", "2", "--run-name", "try"],
        &["sh", "-c", &script],
    );
    let status = agent.wait(Duration::from_secs(60));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());

    let runs = server.runs_of("jobs-retry");
    assert_eq!(runs.len(), 2, "{runs:?}");
    let job_run = job_run_of(&server, &runs[0]);
    assert_eq!(job_run["status"], "SUCCEEDED", "{job_run}");
    let attempts = job_run["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{job_run}");
    let (first, second) = (&attempts[0], &attempts[1]);
    assert_ne!(first["run_id"], second["run_id"]);
    let first_run = run_by_id(&server, "jobs-retry", first["run_id"].as_str().unwrap());
    let second_run = run_by_id(&server, "jobs-retry", second["run_id"].as_str().unwrap());
    assert_eq!(first_run["info"]["status"], "FAILED");
    assert_eq!(second_run["info"]["status"], "FINISHED");
    assert_eq!(first_run["info"]["run_name"], "try");
    assert_eq!(second_run["info"]["run_name"], "try-attempt-2");
    assert_eq!(tag(&second_run, "runlens.attempt"), Some("2"));

    // Each attempt's lines are its own, numbered from 0.
    let texts = |run: &Value| {
        let id = run["info"]["run_id"].as_str().unwrap();
        node_lines(&all_log_lines(&server, id, Some("n")), "n")
    };
    let first_lines = texts(&first_run);
    assert_eq!(first_lines.len(), 2, "{first_lines:?}");
    assert!(first_lines
        .iter()
        .any(|l| l.1 == "stdout" && l.2 == "first"));
    assert!(first_lines.iter().any(|l| l.1 == "stderr" && l.2 == "boom"));
    assert_eq!(
        texts(&second_run),
        [(0, "stdout".to_owned(), "second".to_owned())]
    );

    // With no retry left the job run fails with the command's status.
    let mut failing = job_agent(
        &server,
        "jobs-retry-out",
        &["--max-retries", "1"],
        &["sh", "-c", "exit 5"],
    );
    assert_eq!(failing.wait(Duration::from_secs(60)).code(), Some(5));
    let runs = server.runs_of("jobs-retry-out");
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r["info"]["status"] == "FAILED"));
    let job_run = job_run_of(&server, &runs[0]);
    assert_eq!(job_run["status"], "FAILED");
    assert_eq!(job_run["attempts"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_signal_cancels_the_job_run_without_a_retry() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let pidfile = dir.path().join("child.pid");
    let script = format!(
        "echo $$ > {}; echo started; exec sleep 60",
        pidfile.display()
    );
    let mut agent = job_agent(
        &server,
        "jobs-signal",
        &["--max-retries", "3"],
        &["sh", "-c", &script],
    );
    eventually(Duration::from_secs(30), "the command to start", || {
        std::fs::read_to_string(&pidfile)
            .ok()?
            .trim()
            .parse::<u32>()
            .ok()
    });
    agent.signal("TERM");
    let status = agent.wait(Duration::from_secs(30));
    assert_eq!(status.code(), Some(128 + 15), "{}", agent.stderr());
    let run = server.only_run("jobs-signal");
    assert_eq!(run["info"]["status"], "KILLED");
    let job_run = job_run_of(&server, &run);
    assert_eq!(job_run["status"], "CANCELED", "{job_run}");
    assert_eq!(job_run["attempts"].as_array().map(Vec::len), Some(1));
    let run_id = run["info"]["run_id"].as_str().unwrap();
    assert_eq!(
        node_lines(&all_log_lines(&server, run_id, None), "n"),
        [(0, "stdout".to_owned(), "started".to_owned())]
    );
}

#[test]
fn join_adds_a_node_to_the_latest_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let release = dir.path().join("release");
    let script = format!(
        "echo main; while [ ! -e {} ]; do sleep 0.1; done",
        release.display()
    );
    let mut main = job_agent(&server, "jobs-join", &[], &["sh", "-c", &script]);
    let run = eventually(Duration::from_secs(30), "the first attempt", || {
        server.runs_of("jobs-join").into_iter().next()
    });
    let job_run_id = tag(&run, "runlens.job_run_id").unwrap().to_owned();
    let run_id = run["info"]["run_id"].as_str().unwrap().to_owned();

    let url = server.url();
    let mut joined = Agent::start(&[
        "run",
        "--server",
        &url,
        "--token",
        &server.token,
        "--join",
        &job_run_id,
        "--node",
        "worker-2",
        "--interval-secs",
        "1",
        "--",
        "sh",
        "-c",
        "echo \"joined $MLFLOW_RUN_ID\"; exit 7",
    ]);
    assert_eq!(
        joined.wait(Duration::from_secs(30)).code(),
        Some(7),
        "{}",
        joined.stderr()
    );
    let job_run = job_run_of(&server, &run);
    assert_eq!(job_run["nodes"], serde_json::json!(["n", "worker-2"]));
    assert_eq!(
        job_run["status"], "RUNNING",
        "a joined node does not end the job run"
    );
    let lines = all_log_lines(&server, &run_id, Some("worker-2"));
    assert_eq!(
        node_lines(&lines, "worker-2"),
        [(0, "stdout".to_owned(), format!("joined {run_id}"))]
    );

    std::fs::write(&release, "").unwrap();
    assert_eq!(main.wait(Duration::from_secs(30)).code(), Some(0));
    assert_eq!(job_run_of(&server, &run)["status"], "SUCCEEDED");

    // Joining a job run that does not exist fails before running anything.
    let mut missing = Agent::start(&[
        "run",
        "--server",
        &url,
        "--token",
        &server.token,
        "--join",
        "999999",
        "--node",
        "x",
        "--",
        "true",
    ]);
    assert_eq!(missing.wait(Duration::from_secs(30)).code(), Some(125));
}
