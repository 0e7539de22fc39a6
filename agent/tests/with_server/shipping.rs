//! Log shipping against the real server: every line goes through the disk spool, survives
//! a server stop and restart on the same port and data without a loss or a duplicate, waits
//! in the spool (path printed) when the server stays away, and long or non-UTF-8 lines are
//! cut and decoded as the contract says.

use std::time::Duration;

use crate::helpers::{all_log_lines, eventually, files_in, job_agent, node_lines, TestServer};

/// A command printing `line-0` .. `line-(n-1)`, pausing 0.2 s every 100 lines.
fn counting(n: u32) -> String {
    format!(
        "i=0; while [ $i -lt {n} ]; do echo line-$i; i=$((i+1)); \
         if [ $((i % 100)) -eq 0 ]; then sleep 0.2; fi; done"
    )
}

#[test]
fn lines_printed_while_the_server_restarts_are_stored_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = TestServer::start(dir.path());
    let spool = tempfile::tempdir().unwrap();
    let spool_dir = spool.path().display().to_string();
    let n = 3000u32;
    let mut agent = job_agent(
        &server,
        "ship-restart",
        &["--spool-dir", &spool_dir],
        &["sh", "-c", &counting(n)],
    );
    let run_id = eventually(Duration::from_secs(30), "the first lines", || {
        let run = server.runs_of("ship-restart").into_iter().next()?;
        let id = run["info"]["run_id"].as_str()?.to_owned();
        (!all_log_lines(&server, &id, None).is_empty()).then_some(id)
    });
    server.stop();
    std::thread::sleep(Duration::from_secs(2));
    assert!(agent.is_running(), "the command goes on without the server");
    let spooled = files_in(spool.path());
    assert_eq!(spooled.len(), 1, "{spooled:?}");
    let server = server.restart();
    let status = agent.wait(Duration::from_secs(120));
    assert_eq!(status.code(), Some(0), "{}", agent.stderr());
    let stderr = agent.stderr();
    assert!(
        stderr.contains("cannot ship node n's log lines"),
        "the outage was noticed:\n{stderr}"
    );

    let lines = node_lines(&all_log_lines(&server, &run_id, None), "n");
    let seqs: Vec<u64> = lines.iter().map(|l| l.0).collect();
    assert_eq!(seqs, (0..u64::from(n)).collect::<Vec<_>>(), "each seq once");
    for (i, (_, stream, text)) in lines.iter().enumerate() {
        assert_eq!(
            (stream.as_str(), text.as_str()),
            ("stdout", &*format!("line-{i}"))
        );
    }
    assert!(
        files_in(spool.path()).is_empty(),
        "the drained spool is removed"
    );
    // The agent's own output stayed unchanged.
    let stdout = agent.stdout();
    assert_eq!(stdout.lines().count(), n as usize);
    assert!(stdout.ends_with(&format!("line-{}\n", n - 1)));
}

#[test]
fn when_the_server_stays_away_the_lines_wait_in_the_spool_and_its_path_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = TestServer::start(dir.path());
    let spool = tempfile::tempdir().unwrap();
    let spool_dir = spool.path().display().to_string();
    let go = dir.path().join("go");
    let script = format!(
        "while [ ! -e {} ]; do sleep 0.1; done; echo after-the-outage; exit 2",
        go.display()
    );
    let mut agent = job_agent(
        &server,
        "ship-away",
        &["--spool-dir", &spool_dir, "--drain-timeout-secs", "2"],
        &["sh", "-c", &script],
    );
    eventually(Duration::from_secs(30), "the first attempt", || {
        server.runs_of("ship-away").into_iter().next()
    });
    server.stop();
    std::fs::write(&go, "").unwrap();
    let status = agent.wait(Duration::from_secs(90));
    assert_eq!(
        status.code(),
        Some(2),
        "the command's status, server or not"
    );
    let spooled = files_in(spool.path());
    assert_eq!(spooled.len(), 1, "{spooled:?}");
    let path = spooled[0].display().to_string();
    let stderr = agent.stderr();
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains(&path)).collect();
    assert!(
        said.iter()
            .any(|l| l.contains("1 log lines of node n (attempt 1) were not shipped")),
        "{stderr}"
    );
    let kept = std::fs::read_to_string(&spooled[0]).unwrap();
    assert!(kept.contains("\"text\":\"after-the-outage\""), "{kept}");
}

#[test]
fn long_lines_are_cut_and_invalid_utf8_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path());
    let max = api_types::logs::MAX_LINE_BYTES;
    let long = max * 2 + 100;
    let script = format!(
        "head -c {long} /dev/zero | tr '\\0' x; echo; printf 'bad \\377 byte\\r\\n'; \
         printf 'no ending'"
    );
    let mut agent = job_agent(&server, "ship-shapes", &[], &["sh", "-c", &script]);
    assert_eq!(
        agent.wait(Duration::from_secs(60)).code(),
        Some(0),
        "{}",
        agent.stderr()
    );
    let run = server.only_run("ship-shapes");
    let run_id = run["info"]["run_id"].as_str().unwrap();
    let lines = node_lines(&all_log_lines(&server, run_id, None), "n");
    let lens: Vec<usize> = lines.iter().map(|l| l.2.len()).collect();
    assert_eq!(lens[..3], [max, max, 100], "{lens:?}");
    assert!(lines[..3].iter().all(|l| l.2.bytes().all(|b| b == b'x')));
    assert_eq!(lines[3].2, "bad \u{fffd} byte");
    assert_eq!(lines[4].2, "no ending");
    assert_eq!(lines.len(), 5);
}
