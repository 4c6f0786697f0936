//! The one integration-test binary: each module drives one part of the kit.
mod clauses; // one test per clause of the 2003 rules, given / when / then
mod fullgame;
mod props; // properties over random sessions: time conserved, one clock, replay, refusals // a seven-hour game to the millisecond; the example scripts
