//! `runlens jobs list [--all-status]` and `runlens jobs get JOB_RUN_ID`: job runs as a
//! terminal shows them, over HTTP from a running server (only job runs whose job the
//! token's user may view).

use api_types::jobs::{JobRunDetail, JobRunList};

use super::client::{explain, Remote};
use super::format_time;

/// `runlens jobs ...`
#[derive(clap::Args)]
pub(crate) struct JobsArgs {
    #[command(subcommand)]
    command: JobsCommand,
}

#[derive(clap::Subcommand)]
enum JobsCommand {
    /// List job runs, newest first (active ones unless --all-status).
    List {
        #[command(flatten)]
        remote: Remote,
        /// Finished job runs too (SUCCEEDED, FAILED, CANCELED).
        #[arg(long)]
        all_status: bool,
        /// Most job runs listed (1 to 1000).
        #[arg(long, default_value_t = 100,
              value_parser = clap::value_parser!(u32).range(1..=1000))]
        limit: u32,
    },
    /// Show one job run with its attempts (each attempt is an MLflow run).
    Get {
        #[command(flatten)]
        remote: Remote,
        /// The job run's id.
        job_run_id: i64,
    },
}

/// Runs `runlens jobs ...`.
pub(crate) fn jobs(args: JobsArgs) -> Result<(), String> {
    let rt = super::logs::runtime()?;
    match args.command {
        JobsCommand::List {
            remote,
            all_status,
            limit,
        } => {
            let client = remote.client()?;
            let query = [
                ("all_status", all_status.to_string()),
                ("limit", limit.to_string()),
            ];
            let list: JobRunList = rt
                .block_on(client.get("/api/v1/job-runs").query(&query).send_json())
                .map_err(explain)?;
            print!("{}", list_table(&list.job_runs, all_status));
        }
        JobsCommand::Get { remote, job_run_id } => {
            let client = remote.client()?;
            let detail: JobRunDetail = rt
                .block_on(
                    client
                        .get(&format!("/api/v1/job-runs/{job_run_id}"))
                        .send_json(),
                )
                .map_err(explain)?;
            print!("{}", detail_text(&detail));
        }
    }
    Ok(())
}

/// The table of `jobs list`.
fn list_table(runs: &[JobRunDetail], all_status: bool) -> String {
    if runs.is_empty() {
        return if all_status {
            "No job runs.\n".to_owned()
        } else {
            "No active job runs (--all-status lists finished ones too).\n".to_owned()
        };
    }
    let rows: Vec<[String; 7]> = runs
        .iter()
        .map(|r| {
            [
                r.job_run_id.to_string(),
                r.job.name.clone(),
                r.status.as_str().to_owned(),
                r.attempts.len().to_string(),
                r.nodes.join(","),
                r.created_by.clone(),
                format_time(r.created),
            ]
        })
        .collect();
    let head = [
        "JOB RUN",
        "JOB",
        "STATUS",
        "ATTEMPTS",
        "NODES",
        "BY",
        "CREATED (UTC)",
    ]
    .map(str::to_owned);
    table(&head, &rows)
}

/// Rows aligned in columns (the last column unpadded).
fn table<const N: usize>(head: &[String; N], rows: &[[String; N]]) -> String {
    let mut widths = head.clone().map(|h| h.chars().count());
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(head).chain(rows) {
        let cells: Vec<String> = r
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i + 1 == N {
                    c.clone()
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The text of `jobs get`.
fn detail_text(r: &JobRunDetail) -> String {
    let mut out = format!(
        "Job run {} of job '{}' (job {})\n\
         status:       {}\n\
         experiment:   {}\n\
         nodes:        {}\n\
         max retries:  {}\n\
         created:      {} UTC by {}\n",
        r.job_run_id,
        r.job.name,
        r.job.job_id,
        r.status.as_str(),
        r.experiment_id,
        if r.nodes.is_empty() {
            "-".to_owned()
        } else {
            r.nodes.join(", ")
        },
        r.max_retries,
        format_time(r.created),
        r.created_by,
    );
    if let Some(ended) = r.ended {
        out.push_str(&format!("ended:        {} UTC\n", format_time(ended)));
    }
    if r.attempts.is_empty() {
        out.push_str("No attempt yet.\n");
        return out;
    }
    out.push_str("\nAttempts:\n");
    let rows: Vec<[String; 6]> = r
        .attempts
        .iter()
        .map(|a| {
            [
                a.number.to_string(),
                a.run_id.clone(),
                a.status.clone(),
                format_time(a.start_time),
                a.end_time.map_or_else(|| "-".to_owned(), format_time),
                a.run_name.clone(),
            ]
        })
        .collect();
    let head = ["#", "RUN ID", "STATUS", "STARTED", "ENDED", "RUN NAME"].map(str::to_owned);
    out.push_str(&table(&head, &rows));
    out.push_str(&format!(
        "\nLogs: runlens logs {} [--attempt N] [--follow]\n",
        r.job_run_id
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_the_last_column_is_not_padded() {
        let head = ["A".to_owned(), "B".to_owned()];
        let rows = [["long".to_owned(), "x".to_owned()]];
        assert_eq!(table(&head, &rows), "A     B\nlong  x\n");
    }
}
