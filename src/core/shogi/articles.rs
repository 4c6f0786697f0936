//! Article numbers of the 5th World Shogi AI Denryu-sen rules (2024, `../shared/denryusen-2024.md`),
//! as a shogi game's log cites them. Code names articles, never numbers.

/// 5.2: the four kinds of entrant; a human consulting an AI declares how (bound into line 0).
pub const ENTRANTS: &str = "5.2";
/// 13.1: results are as shogi-server-dr judges them (mate, resignation, illegal move, time).
pub const SERVER_JUDGEMENT: &str = "13.1";
/// 13.2: 512 moves without a result: a draw.
pub const MAX_MOVES: &str = "13.2";
/// 13.3: checkmate on the move that reaches the cap: a draw.
pub const MATE_AT_MAX_MOVES: &str = "13.3";
/// 13.4: a successful declaration at the cap wins.
pub const DECLARATION_AT_MAX_MOVES: &str = "13.4";
/// 13.5: sennichite is a draw, not replayed.
pub const SENNICHITE: &str = "13.5";
/// 13.6: one side logged in 5 minutes after the start: it wins by forfeit.
pub const NO_SHOW: &str = "13.6";
/// 13.7: neither logged in 5 minutes after the start: both lose.
pub const BOTH_ABSENT: &str = "13.7";
/// 13.8: what the rules do not settle, the referees rule.
pub const REFEREES: &str = "13.8";
/// 14: a draw scores 0.4 for sente, 0.6 for gote.
pub const DRAW_POINTS: &str = "14";
/// 19.4: the start signal comes from the server.
pub const START: &str = "19.4";
/// 19.6: human entrants send their moves by hand.
pub const MANUAL_MOVES: &str = "19.6";
/// 21: the time each side has.
pub const TIME: &str = "21";
/// 22.1: each move's time, measured and floored to whole seconds.
pub const MOVE_TIME: &str = "22.1";
/// 22.3: the server measures each move's time and the total.
pub const SERVER_CLOCK: &str = "22.3";
/// 23: the entering-king declaration.
pub const DECLARATION: &str = "23";
/// 28.1: each entrant keeps everything that reproduces the games (its programs, their data): the
/// engine logs and the program copies handed over after a game (the 2003 rules' 13a, 13c, 13d).
pub const PRESERVATION: &str = "28.1";
/// 4.3: the referees judge and rule (stops, notes, corrections).
pub const REFEREE: &str = "4.3";

/// The Denryu-sen article standing where the 2003 rules' `clause` would be cited. Clauses that
/// have no counterpart (the operator's duties, draw offers, tablebases) go to the referees (4.3).
pub fn for_2003_clause(clause: &str) -> &'static str {
    use crate::core::clause as c;
    match clause {
        c::LAWS => SERVER_JUDGEMENT,
        c::TIME_CONTROL => SERVER_CLOCK,
        c::ENTER_HUMAN_MOVE => MANUAL_MOVES,
        c::EXECUTE_MACHINE_MOVE => MOVE_TIME,
        c::RESIGN => SERVER_JUDGEMENT,
        // The clock an engine was told, audited against the server's (the 2003 rules' 6c).
        c::INTERNAL_CLOCK => SERVER_CLOCK,
        c::ENGINE_LOG | c::ENGINE_LOG_CONTENT | c::PROGRAM_COPY => PRESERVATION,
        _ => REFEREE,
    }
}
