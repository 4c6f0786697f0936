//! The wait after failed passphrases: after each wrong or empty passphrase the
//! prompt takes the next one only after a wait that doubles, 1 s, 2 s, 4 s … up to
//! [`MAX_WAIT_MS`]; a right passphrase resets it. The failures themselves are logged by the
//! shell (5b). PURE: times are arguments, in ms on the board's monotonic clock.

/// The first wait after a failure, in ms.
pub const FIRST_WAIT_MS: u64 = 1_000;
/// The longest wait, in ms (no more than the 30 s a stop timed at the key waits for its passphrase).
pub const MAX_WAIT_MS: u64 = 30_000;

/// Failed passphrases in a row and when the next one is taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backoff {
    failures: u32,
    until_ms: u64,
}

impl Backoff {
    /// A failure at `now_ms`: returns the wait before the next passphrase is taken.
    pub fn fail(&mut self, now_ms: u64) -> u64 {
        self.failures = self.failures.saturating_add(1);
        let wait = FIRST_WAIT_MS
            .saturating_mul(1u64 << (self.failures - 1).min(16))
            .min(MAX_WAIT_MS);
        self.until_ms = now_ms.saturating_add(wait);
        wait
    }

    /// A right passphrase: the next failure waits [`FIRST_WAIT_MS`] again.
    pub fn succeed(&mut self) {
        *self = Backoff::default();
    }

    /// How long, at `now_ms`, before a passphrase is taken (`None`: now).
    pub fn wait_left(&self, now_ms: u64) -> Option<u64> {
        (now_ms < self.until_ms).then(|| self.until_ms - now_ms)
    }

    /// Failed passphrases in a row.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// The words the screen shows after a failure or an early attempt.
    pub fn say(&self, now_ms: u64) -> String {
        match self.wait_left(now_ms) {
            Some(ms) => format!(
                "{} failed passphrase{} in a row: the next is taken in {} s",
                self.failures,
                if self.failures == 1 { "" } else { "s" },
                ms.div_ceil(1000)
            ),
            None => String::new(),
        }
    }
}
