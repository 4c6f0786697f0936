//! A camp's witness's own clock (SHELL): when it received each entry
//! (`DIR/game-<n>/received`, one line per entry, appended and fdatasynced with the copy), and what
//! that allows the record to claim of an outage. The board's restart gap (`restart_gap`'s
//! `gap_ms`, the time a crash charges to a running clock) rests on the laptop's wall clock when
//! the machine restarted; the witness runs on the camp's machine and saw, by its own clock, how
//! long the record stayed silent: the record may not claim that more time passed than the witness
//! saw pass between the last entry before the outage and the first after it (plus
//! [`TOLERANCE_MS`]). docs/log-format.md, "The live record", says the rule.
use chrono::{DateTime, Utc};

/// First line of the `received` file.
pub const RECEIVED_HEAD: &str = "arbiter-kit witness received v1";

/// What the witness allows beyond what its own clock measured: the live record's polling (50 ms),
/// the transport, and the kit's own rounding of the gap.
pub const TOLERANCE_MS: u64 = 2_000;

/// When the witness received one entry, by its own clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reception {
    pub seq: u64,
    /// The witness machine's wall clock.
    pub utc: DateTime<Utc>,
    /// The witness machine's boot id (empty when it cannot be read).
    pub boot_id: String,
    /// Milliseconds since the witness machine booted (CLOCK_BOOTTIME: counts a suspend, ignores
    /// the wall clock).
    pub boottime_ms: u64,
    /// Received as it was written: the connection had caught up with the record (it had been
    /// quiet once), so the entry was sent the moment the live record found it. An entry received
    /// while catching up (`backlog`) may have been written long before.
    pub live: bool,
}

/// This machine's boot id and milliseconds since boot (`/proc/sys/kernel/random/boot_id`, read
/// once: it is the same until the machine restarts; CLOCK_BOOTTIME, the clock of `/proc/uptime`,
/// read without a file: the heartbeat asks every second); empty where the id cannot be read.
pub fn boot_clock() -> (&'static str, u64) {
    static BOOT_ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let id = BOOT_ID.get_or_init(|| {
        crate::record::fsio::read(std::path::Path::new("/proc/sys/kernel/random/boot_id"), 256)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-'))
            .unwrap_or_default()
    });
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    let up = u64::try_from(t.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1000)
        .saturating_add(u64::try_from(t.tv_nsec / 1_000_000).unwrap_or(0));
    (id.as_str(), up)
}

impl Reception {
    /// Entry `seq` received now.
    pub fn now(seq: u64, live: bool) -> Reception {
        let (boot_id, boottime_ms) = boot_clock();
        Reception {
            seq,
            utc: Utc::now(),
            boot_id: boot_id.to_owned(),
            boottime_ms,
            live,
        }
    }

    /// Its line in `received` (with its newline): `<seq> <utc> <boot id or -> <boot ms>
    /// live|backlog`.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {} {}\n",
            self.seq,
            crate::log::format_utc(&self.utc),
            if self.boot_id.is_empty() {
                "-"
            } else {
                &self.boot_id
            },
            self.boottime_ms,
            if self.live { "live" } else { "backlog" }
        )
    }

    /// A line of `received` (without its newline).
    pub fn parse(line: &str) -> Option<Reception> {
        let mut w = line.split(' ');
        let seq = w.next()?.parse().ok()?;
        let utc = DateTime::parse_from_rfc3339(w.next()?)
            .ok()?
            .with_timezone(&Utc);
        let boot_id = match w.next()? {
            "-" => String::new(),
            id if id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') => id.to_owned(),
            _ => return None,
        };
        let boottime_ms = w.next()?.parse().ok()?;
        let live = match w.next()? {
            "live" => true,
            "backlog" => false,
            _ => return None,
        };
        w.next().is_none().then_some(Reception {
            seq,
            utc,
            boot_id,
            boottime_ms,
            live,
        })
    }

    /// Milliseconds from `earlier` to this reception on the witness's clock: its boot clock when
    /// both were read in the same boot of the machine, else its wall clock.
    pub fn since(&self, earlier: &Reception) -> i64 {
        if !self.boot_id.is_empty() && self.boot_id == earlier.boot_id {
            self.boottime_ms as i64 - earlier.boottime_ms as i64
        } else {
            (self.utc - earlier.utc).num_milliseconds()
        }
    }
}

/// The outage an entry claims: a `restart_gap` ruling's `gap_ms`, when more than nothing.
pub fn claimed_gap(line: &[u8]) -> Option<u64> {
    if crate::log::codec::line_kind(line)? != "restart_gap" {
        return None;
    }
    let e = crate::log::parse_line(line, 0).ok()?;
    e.body.get("gap_ms")?.as_u64().filter(|g| *g > 0)
}

/// What the witness keeps of each entry it holds, to find where an outage lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Its game time (`mono_ms`).
    pub mono_ms: u64,
    /// One of the entries the kit may record after a restart before the arbiter's ruling on
    /// it ([`MAY_PRECEDE_THE_RULING`]).
    pub before_ruling: bool,
}

/// The kinds the kit may record between a restart with a clock running and the arbiter's ruling
/// on its gap (every other command is refused until he rules): the repair of a torn tail, the
/// clocks stopped meanwhile, and authorizations.
pub const MAY_PRECEDE_THE_RULING: [&str; 4] = [
    crate::log::RECOVERY_KIND,
    "clock_stopped",
    "authorized",
    "authorization_failed",
];

impl Written {
    /// What is kept of `kind` at game time `mono_ms`.
    pub fn new(mono_ms: u64, kind: &str) -> Written {
        Written {
            mono_ms,
            before_ruling: MAY_PRECEDE_THE_RULING.contains(&kind),
        }
    }
}

/// What the witness's clock says of an outage entry `entry` claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outage {
    /// No more than the witness saw pass between entry `from` (the last before the outage) and
    /// entry `to` (the first after it), plus the tolerance.
    Holds {
        entry: u64,
        claimed: u64,
        bound: u64,
        from: u64,
        to: u64,
    },
    /// More than the witness saw pass: the record's clock ran ahead of the camp's.
    Exceeds {
        entry: u64,
        claimed: u64,
        bound: u64,
        from: u64,
        to: u64,
    },
    /// The witness has no reading to hold it to (why, in words).
    CannotBound {
        entry: u64,
        claimed: u64,
        why: String,
    },
}

/// Hold the outage of `claimed` ms that entry `entry` records (a restart's ruling) to the
/// witness's clock. `written` gives what is kept of every entry up to `entry`; `received`, the
/// reception of an entry, if noted.
///
/// Where the outage lies: a restart goes on in game time from the last entry plus the gap it
/// measured, so the first entry after the outage follows the one before it by at least the gap
/// in game time; and between the restart and the ruling the kit records only the entries of
/// [`MAY_PRECEDE_THE_RULING`]. So each entry `to` of the ruling's trailing run of such entries
/// (the ruling included) whose game time is at least the gap (less the tolerance) past the entry
/// before it may be the first after the outage; the first of the entries before it sharing that
/// entry's game time is `from` (entries written while the kit was down, a recovery or an
/// authorization, take the last entry's game time, and come after it). At most what the
/// witness's clock measured between receiving `from` and `to` passed between the two writes,
/// provided `from` reached it as it was written (`live`). A candidate after the restart is no
/// outage at all (its game time ran on the laptop's monotonic clock): it holds whatever the gap.
/// The claim exceeds the witness's bound if it does for one candidate; else it holds, naming the
/// first candidate the witness could bound; else the witness cannot bound it.
pub fn judge(
    entry: u64,
    claimed: u64,
    written: &dyn Fn(u64) -> Option<Written>,
    received: &dyn Fn(u64) -> Option<Reception>,
) -> Outage {
    let cannot = |why: String| Outage::CannotBound {
        entry,
        claimed,
        why,
    };
    let mono = |s: u64| written(s).map(|w| w.mono_ms);
    let mut first = entry;
    while first > 0 && written(first - 1).is_some_and(|w| w.before_ruling) {
        first -= 1;
    }
    let candidates: Vec<u64> = (first.max(1)..=entry)
        .filter(|&b| match (mono(b - 1), mono(b)) {
            (Some(x), Some(y)) => y.saturating_sub(x) + TOLERANCE_MS >= claimed,
            _ => false,
        })
        .collect();
    if candidates.is_empty() {
        return cannot(format!(
            "no entry from the restart to #{entry} follows the one before it by as much game time: the record does not show where the outage lies"
        ));
    }
    let verdicts: Vec<Outage> = candidates
        .into_iter()
        .map(|to| {
            let run = mono(to - 1);
            let mut from = to - 1;
            while from > 0 && mono(from - 1) == run {
                from -= 1;
            }
            let (Some(a), Some(b)) = (received(from), received(to)) else {
                return cannot(format!(
                    "this witness noted no reception time for entry #{from} or #{to} (received before it noted them)"
                ));
            };
            if !a.live {
                return cannot(format!(
                    "entry #{from}, the last before the outage, reached this witness while it caught up with the record (it connected after it was written), not as it was written"
                ));
            }
            let bound = b.since(&a).max(0) as u64;
            if claimed > bound + TOLERANCE_MS {
                Outage::Exceeds {
                    entry,
                    claimed,
                    bound,
                    from,
                    to,
                }
            } else {
                Outage::Holds {
                    entry,
                    claimed,
                    bound,
                    from,
                    to,
                }
            }
        })
        .collect();
    let first_of = |f: &dyn Fn(&Outage) -> bool| verdicts.iter().find(|v| f(v)).cloned();
    first_of(&|v| matches!(v, Outage::Exceeds { .. }))
        .or_else(|| first_of(&|v| matches!(v, Outage::Holds { .. })))
        .or_else(|| first_of(&|_| true))
        .unwrap_or_else(|| cannot("no candidate".into()))
}

impl std::fmt::Display for Outage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = |ms: u64| crate::core::timefmt::clock(i64::try_from(ms).unwrap_or(i64::MAX));
        match self {
            Outage::Holds {
                entry,
                claimed,
                bound,
                from,
                to,
            } => write!(
                f,
                "entry #{entry} records an outage of {} ({claimed} ms); it holds against this witness's clock: {} ({bound} ms) passed between receiving #{from}, the last entry before it, and #{to}, the first after it",
                t(*claimed),
                t(*bound)
            ),
            Outage::Exceeds {
                entry,
                claimed,
                bound,
                from,
                to,
            } => write!(
                f,
                "entry #{entry} restart_gap claims an outage of {} ({claimed} ms), but only {} ({bound} ms) passed on the camp's witness's own clock between receiving #{from}, the last entry before the outage, and #{to}, the first after it (tolerance {} ms): the record's clock ran ahead of the camp's",
                t(*claimed),
                t(*bound),
                TOLERANCE_MS
            ),
            Outage::CannotBound {
                entry,
                claimed,
                why,
            } => write!(
                f,
                "entry #{entry} records an outage of {} ({claimed} ms) this witness cannot bound: {why}",
                t(*claimed)
            ),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(seq: u64, ms: u64, live: bool) -> Reception {
        Reception {
            seq,
            utc: DateTime::from_timestamp_millis(1_800_000_000_000 + ms as i64).unwrap(),
            boot_id: "b".into(),
            boottime_ms: 1_000_000 + ms,
            live,
        }
    }

    /// Entries 0..=2 before a crash, a recovery at the same game time, the clocks stopped at the
    /// reopening, then the ruling `after` later.
    fn case(gap: u64, witnessed: u64, live: bool, after: u64) -> Outage {
        let w = |mono_ms, kind| Written::new(mono_ms, kind);
        let written = [
            w(0, "game_opened"),
            w(1_000, "move_made"),
            w(5_000, "move_made"),
            w(5_000, "recovery"),
            w(5_000 + gap + 3_000, "clock_stopped"),
            w(5_000 + gap + 3_000 + after, "restart_gap"),
        ];
        let recv = [
            at(0, 0, live),
            at(1, 1_000, live),
            at(2, 5_000, live),
            at(3, 5_000 + witnessed, true),
            at(4, 5_000 + witnessed + 3_000, true),
            at(5, 5_000 + witnessed + 3_000 + after, true),
        ];
        judge(5, gap, &|s| written.get(s as usize).copied(), &|s| {
            recv.get(s as usize).cloned()
        })
    }

    #[test]
    fn an_outage_longer_than_the_witness_saw_exceeds_it_and_a_true_one_holds() {
        // 8 minutes recorded, 8 minutes seen: holds; from #2 (not the recovery #3) to #4, the
        // clocks stopped at the reopening, whether the ruling came at once or 10 minutes later.
        for after in [1_000, 600_000] {
            assert_eq!(
                case(480_000, 480_000, true, after),
                Outage::Holds {
                    entry: 5,
                    claimed: 480_000,
                    bound: 483_000,
                    from: 2,
                    to: 4
                }
            );
        }
        // 1 h 08 recorded, 8 minutes seen: the ruling at once, or long after the clocks were
        // stopped (its game time since then is the laptop's monotonic clock's, and true).
        for after in [1_000, 5_000_000] {
            assert!(
                matches!(
                    case(4_080_000, 480_000, true, after),
                    Outage::Exceeds {
                        bound: 483_000,
                        from: 2,
                        to: 4,
                        ..
                    }
                ),
                "{after}"
            );
        }
        // The same, entry #2 received while catching up: no bound.
        assert!(matches!(
            case(4_080_000, 480_000, false, 1_000),
            Outage::CannotBound { .. }
        ));
    }

    #[test]
    fn a_reception_line_reads_back() {
        let r = at(7, 12, true);
        assert_eq!(Reception::parse(r.line().trim_end()), Some(r));
        let mut r = at(8, 12, false);
        r.boot_id.clear();
        assert_eq!(Reception::parse(r.line().trim_end()), Some(r));
        assert_eq!(Reception::parse("8 x - 1 live"), None);
    }
}
