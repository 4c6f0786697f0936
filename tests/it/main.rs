//! The one integration-test binary: each module drives one part of the kit.
mod agent;
mod anywhere; // bundled profiles, any folder, completions, man page
mod archive_copies; // rule 13a: copies compared, hashed, stored; SHA256SUMS
mod board_match; // config-file digest, next game carried over, status computed now
mod checkpoint_cost; // a checkpoint's tree head kept while appending, and verify's heads in one pass
mod clauses; // one test per clause of the 2003 rules, given / when / then
mod clauses13; // rule 13 through the binary: 13a, 13c, 13d, 13e
mod clauses13_core;
mod clauses20; // results over pressed moves, 7c after the reply, 8b twice, notation, 10a // rule 13 decided in the core: refusal, lateness, clause
mod crash; // SIGKILL at random moments: nothing acknowledged is lost
mod decode; // a log line read straight into its event, as the Value path reads it
mod denryusen; // the Denryu-sen 2024 rules: shogi judged, one test per article
mod denryusen_articles; // the article map as profile data: log, refusals and report cite the profile
mod denryusen_engine; // a real USI engine's log: 13c coverage and go-time audit, human-vs-engine and self-play
mod denryusen_record; // a human-vs-engine shogi game to the ms; CSA and KIF read by python-shogi
mod denryusen_screens; // the shogi board at 80x24 and 120x40 (snapshots)
mod display; // the read-only screen follows the board, never writes
mod draw_offer_move;
mod engine_clock; // rule 6c audited from a real Stockfish log: go wtime/btime against the official clock
mod engine_coverage; // UCI / CECP engine logs and the rule-13c coverage
mod engine_props; // engine-log parsers never panic
mod exit_codes; // README's exit codes, each driven through the binary on every command
mod faults; // injected write and fsync failures, wall-clock jumps
mod fixture; // the small signed demo game under tests/fixtures
mod flat_reads; // damaged logs, foreign cuts and read_entries read line by line
mod fullgame; // a seven-hour game to the millisecond; the example scripts
mod fuzz; // seeded structure-aware mutation loops: no panics, no hangs
mod game_limit; // at most 9999 games; no game 10000 opened
mod heartbeat; // heartbeat v2, a hash chain signed once; loss noticed while running
mod hostile; // full devices and closed pipes on stdout, FIFOs, symlinks
mod layers; // the layer rules of src/lib.rs, the exit-code table against the docs
mod log_consistency; // RFC 6962 consistency proofs: vectors, probes, random trees
mod log_cosign; // countersignatures: kit and stock ssh-keygen -Y sign / -Y verify, both ways
mod log_format; // byte format, RFC 6962 vectors, checkpoint text
mod log_index; // scoresheet short codes and the signed match index
mod log_interop; // ssh-keygen -Y verify, the jq + sha256sum recipe, passphrase keys
mod log_journal; // append + fdatasync, lock, torn-tail repair
mod log_note; // C2SP signed notes and tlog checkpoints; Go sumdb/note and sumdb/tlog interop
mod log_scan_fast; // log::scan's fast path equals the strict parser
mod log_tamper; // the tamper matrix
mod log_util;
mod log_verify; // verify statuses, proofs, exit codes
mod match_profile;
mod memory_flat; // what the readers keep is bounded whatever the log's length
mod numbering; // move numbers from the side that moved first (board, display, 7c)
mod offline; // rule 11: no network call
mod one_read; // the match score takes the game already rebuilt
mod one_replay; // pgn gathers its times from the one replay of the game
mod outputs; // no output path lands on a match's own files
mod passphrase; // 5b / failed passphrases logged in every state, doubling wait
mod pgn_clocks; // the PGN's clocks are the log's, press-then-notation or not
mod pgn_real2003; // the six games of 2003, move-and-press against press-then-notation
mod pgn_support;
mod pgn_write; // PGN with %clk / %emt
mod press; // the press is the time, the notation follows
mod profiles_matches; // the real man–machine matches as profiles, each through its rule
mod props; // properties over random sessions: time conserved, one clock, replay, refusals
mod pty; // the Board UI in a real pseudo-terminal (tmux)
mod readme; // README's examples are what the kit accepts
mod realgame; // the real Stockfish game end to end: archive, coverage, PGN in two readers
mod record_trust; // the key out of reach, actors as rules, crash and full disk, no downgrade
mod refusal_exit; // one refusal through script, archive and the board: the same exit code
mod relay; // the live relay's PGN at every entry, delay, games in order
mod report_golden; // the reports of the six 2003 games, byte for byte as before
mod report_model; // the committee report's content
mod report_public; // the public report names no folder and no program file (13e)
mod report_render;
mod report_sections; // every section follows the timeline: voids, corrections, controls // report files, self-contained HTML, headless Chromium
mod report_stream; // the report streamed in two passes equals the whole rendering
mod report_support;
mod restart; // 8b: restart and suspend gaps ruled once, measured, with a reason
mod roles; // 5b: the operator's rights and the arbiter-only commands
mod screens; // every Board UI screen and panel (snapshots)
mod table_serve; // `arbiter serve`: Python seats on aiwolf-nlp-common, faults, kill -9, tokens, control
mod text; // 5b: free text kept, length limit
mod timecontrol; // the time-control model against hand vectors and a reference
mod times; // per-move times equal the clocks; take-backs, penalties, corrections, gaps
mod tui_frame; // a tick draws only the clocks; the terminal always equals a whole frame
mod tui_keys; // keys -> commands, pure
mod tui_log_tail; // the Board UI keeps the latest entries, reads older pages on demand
mod tui_support;
mod typed_errors; // both boards refuse with one error type; the same exit code from either game
mod usage; // clap usage errors: `arbiter: error: …`, exit 2
mod verify_one_pass; // verify reads each log once; its facts equal the line reader's
mod verify_seam; // damage at the seam between verify's blocks: the exact path's verdict
mod void; // rule 1: the arbiter voids a mis-keyed entry; replay agrees
mod werewolf_after; // a werewolf game after the game: verify re-runs it, status, the official .log and .json, the report
mod werewolf_faults; // the referee's verdicts at a werewolf table: late, probe, unsolicited, binary, oversize, closed, arbiter acts
mod werewolf_regulation; // the AI Werewolf regulation and the official server's behaviour, one test each
mod werewolf_replay; // a werewolf game re-run from its events; the length counter against real talk
mod werewolf_seat; // a human's seat (arbiter seat in tmux) among Python seats; the audience's display; their screens
mod werewolf_support; // a werewolf table driven through decide/evolve
mod witness; // demo key, pinned trust, rollback, rename, never overwrite, notes
mod witness_alarms; // what a camp's witness disputes reaches the arbiter at once; the policy's interval held live
mod witness_attacks; // each attack on a real match folder, and what the kit and verify say
mod witness_board; // the camps asked at each time control; camps carried to the next game
mod witness_camps; // camps prove possession of their keys; index versions, match codes
mod witness_clock; // a camp's witness holds the record's outage to its own clock
mod witness_live; // live witnesses: arbiter live, arbiter witness, verify --witness-copy
mod witness_policy; // the policy's live witnesses: signed from the profile, signed at the interval, verify per camp
mod witness_policy_crash; // a live-witness policy across a crash, a torn tail and a full disk
