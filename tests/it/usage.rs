//! Usage errors (clap): an unknown flag, a missing argument or no command at all say
//! `arbiter: error: …` on standard error like the kit's other errors, with the usage line, and
//! end with the usage code (2, docs/log-format.md); `--help` and `--version` still exit 0.
use std::process::{Command, Output, Stdio};

use arbiter::error::Exit;

fn arbiter(args: &[&str]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::null())
        .output()
}

#[test]
fn exit_codes_usage_errors_say_arbiter_error_and_exit_2() -> Result<(), Box<dyn std::error::Error>>
{
    let cases: [(&[&str], &str); 4] = [
        (
            &["report", "--game", "1", "--bogus"],
            "arbiter: error: unexpected argument '--bogus' found",
        ),
        (
            &["report"],
            "arbiter: error: the following required arguments were not provided:",
        ),
        (
            &["no-such-command"],
            "arbiter: error: unrecognized subcommand",
        ),
        (&[], "arbiter: error: a command is needed"),
    ];
    for (args, first) in cases {
        let o = arbiter(args)?;
        assert_eq!(
            o.status.code(),
            Some(i32::from(Exit::Usage.code())),
            "{args:?}: {o:?}"
        );
        assert_eq!(Exit::Usage.code(), 2);
        let err = String::from_utf8(o.stderr)?;
        assert!(err.starts_with(first), "{args:?}: {err}");
        assert!(err.contains("Usage: arbiter"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    for args in [&["--help"][..], &["--version"], &["report", "--help"]] {
        let o = arbiter(args)?;
        assert_eq!(o.status.code(), Some(0), "{args:?}: {o:?}");
        assert!(
            !o.stdout.is_empty() && o.stderr.is_empty(),
            "{args:?}: {o:?}"
        );
    }
    Ok(())
}
