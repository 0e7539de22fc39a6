//! The job behind a run, above the run page's tabs: job name, "Job run #N · status",
//! "Attempt a of n" with links to the other attempts' run pages, and "Share job" for
//! those who may manage the job.

mod share;

use api_types as json;
use json::jobs::{Attempt, RunJobInfo};
use json::{JobLevel, JobRunStatus};
use leptos::prelude::*;

use crate::routes::AppRoute;
use share::ShareJobButton;

/// The badge class and label of a job run status.
fn status_badge(s: JobRunStatus) -> (&'static str, &'static str) {
    match s {
        JobRunStatus::Queued => ("badge badge-scheduled", "Queued"),
        JobRunStatus::Running => ("badge badge-running", "Running"),
        JobRunStatus::Succeeded => ("badge badge-finished", "Succeeded"),
        JobRunStatus::Failed => ("badge badge-failed", "Failed"),
        JobRunStatus::Canceled => ("badge badge-killed", "Canceled"),
    }
}

/// "Attempt 2 of 3".
fn attempt_text(this: u32, attempts: &[Attempt]) -> String {
    let total = attempts
        .iter()
        .map(|a| a.number)
        .max()
        .unwrap_or(0)
        .max(this);
    format!("Attempt {this} of {total}")
}

/// Links to the run pages of the other attempts.
fn other_attempts(this: u32, attempts: &[Attempt]) -> impl IntoView {
    let links = attempts
        .iter()
        .filter(|a| a.number != this)
        .map(|a| {
            let title = format!("{} ({})", a.run_name, a.status);
            view! { <a class="job-attempt-link" href=AppRoute::run(a.run_id.clone()) title=title>{format!("Attempt {}", a.number)}</a> }
        })
        .collect::<Vec<_>>();
    (!links.is_empty()).then(|| view! { <span class="job-others">"Other attempts: "{links}</span> })
}

/// The job header.
#[component]
pub fn JobHeader(
    /// The job run behind the run.
    info: RunJobInfo,
) -> impl IntoView {
    let (badge, label) = status_badge(info.status);
    let can_manage = info.your_level >= Some(JobLevel::CanManage);
    let job = info.job.clone();
    view! {
        <section class="job-header" aria-label="Job">
            <div class="job-facts">
                <span class="job-kicker">"Job"</span>
                <span class="job-name">{info.job.name.clone()}</span>
                <span class="job-run">
                    {format!("Job run #{} · ", info.job_run_id)}
                    <span class=badge title=info.status.as_str()>{label}</span>
                </span>
                <span class="job-attempt">{attempt_text(info.attempt, &info.attempts)}</span>
                {other_attempts(info.attempt, &info.attempts)}
            </div>
            {can_manage.then(|| view! { <ShareJobButton job_id=job.job_id job_name=job.name.clone() /> })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(n: u32) -> Attempt {
        Attempt {
            job_run_id: 1,
            number: n,
            run_id: format!("r{n}"),
            run_name: format!("job-1-attempt-{n}"),
            status: "FAILED".into(),
            start_time: 0,
            end_time: None,
        }
    }

    #[test]
    fn attempts_count_the_job_run_s_tries() {
        assert_eq!(attempt_text(2, &[attempt(1), attempt(2)]), "Attempt 2 of 2");
        assert_eq!(
            attempt_text(1, &[attempt(1), attempt(2), attempt(3)]),
            "Attempt 1 of 3"
        );
        assert_eq!(attempt_text(1, &[]), "Attempt 1 of 1");
        assert_eq!(status_badge(JobRunStatus::Succeeded).1, "Succeeded");
    }
}
