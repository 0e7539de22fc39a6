//! When the panel pauses, signal-free: after the idle time without input (until Resume) or
//! while the tab is hidden (until shown), and what the pause banner says.

/// Whether the panel polls, and if not why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Polling.
    Live,
    /// Paused after the idle time without input; stays paused until Resume.
    Idle,
    /// Paused while the browser tab is hidden; resumes when it is shown.
    Hidden,
}

impl Activity {
    /// The next state given whether the user is idle and the tab hidden.
    pub fn next(self, idle: bool, hidden: bool) -> Activity {
        match self {
            Activity::Idle => Activity::Idle,
            _ if hidden => Activity::Hidden,
            _ if idle => Activity::Idle,
            _ => Activity::Live,
        }
    }

    /// `data-activity` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Live => "live",
            Activity::Idle => "idle",
            Activity::Hidden => "hidden",
        }
    }
}

/// `5 minutes`, `1 minute`, `90 seconds`, `1 second`: the idle time in words.
pub fn idle_words(secs: u64) -> String {
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if secs >= 60 && secs.is_multiple_of(60) {
        plural(secs / 60, "minute")
    } else {
        plural(secs, "second")
    }
}

/// What the pause banner says.
pub fn pause_text(activity: Activity, idle_secs: u64) -> Option<String> {
    match activity {
        Activity::Live => None,
        Activity::Idle => Some(format!(
            "Paused after {} of inactivity",
            idle_words(idle_secs)
        )),
        Activity::Hidden => Some("Paused while this tab is hidden".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_pause_holds_until_resume_and_hidden_pause_ends_when_shown() {
        use Activity::*;
        assert_eq!(Live.next(false, false), Live);
        assert_eq!(Live.next(true, false), Idle);
        assert_eq!(Idle.next(false, false), Idle);
        assert_eq!(Live.next(false, true), Hidden);
        assert_eq!(Hidden.next(false, true), Hidden);
        assert_eq!(Hidden.next(false, false), Live);
        assert_eq!(Hidden.next(true, false), Idle);
        assert_eq!(Idle.next(false, true), Idle);
    }

    #[test]
    fn pause_banner_words() {
        assert_eq!(
            pause_text(Activity::Idle, 300).as_deref(),
            Some("Paused after 5 minutes of inactivity")
        );
        assert_eq!(idle_words(60), "1 minute");
        assert_eq!(idle_words(90), "90 seconds");
        assert_eq!(idle_words(1), "1 second");
        assert_eq!(pause_text(Activity::Live, 300), None);
        assert!(pause_text(Activity::Hidden, 300)
            .unwrap()
            .contains("hidden"));
    }
}
