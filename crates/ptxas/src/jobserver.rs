//! `--jobserver`: under `make -jN`, `--split-compile`'s threads beyond the
//! first each hold a token of GNU make's jobserver, so that the whole build
//! stays within N jobs. Tokens are taken without waiting: a busy jobserver
//! leaves the compile on fewer threads, never blocked; they go back when
//! the compile ends.
//!
//! Tokens come from a named FIFO (`--jobserver-auth=fifo:PATH`, GNU make
//! 4.4+); with make's older anonymous pipe the compile keeps to one thread.
//!
//! As NVIDIA's ptxas 13.5 (measured): only `--jobserver-auth=` in
//! `MAKEFLAGS` counts (`fifo:PATH` or `R,W` descriptors); without it, a
//! warning and the option is ignored; a jobserver that cannot be used is
//! fatal; none of this happens without `--split-compile` above 1.

use std::sync::OnceLock;

use crate::diag::Diagnostic;

/// The threads a compile may use, and the tokens that allow them.
pub(crate) struct Grant {
    /// Threads, this one included.
    pub threads: usize,
    /// Released when the grant is dropped.
    _tokens: Vec<jobserver::Acquired>,
}

/// What `MAKEFLAGS` offers.
enum Jobserver {
    Usable(jobserver::Client),
    Absent,
    Broken,
}

/// The process's jobserver, looked up once: its descriptors are inherited
/// state that must be interpreted only once.
fn jobserver() -> &'static Jobserver {
    static FOUND: OnceLock<Jobserver> = OnceLock::new();
    FOUND.get_or_init(|| {
        let flags = std::env::var("MAKEFLAGS").unwrap_or_default();
        if !flags.split_whitespace().any(|f| f.starts_with("--jobserver-auth=")) {
            return Jobserver::Absent;
        }
        // SAFETY: the descriptors MAKEFLAGS names are make's jobserver pipe
        // (`check_pipe` verifies they are pipes), inherited for this
        // purpose and used by nothing else in this process.
        let found = unsafe { jobserver::Client::from_env_ext(true) };
        match found.client {
            Ok(client) => Jobserver::Usable(client),
            Err(_) => Jobserver::Broken,
        }
    })
}

/// The grant for a compile asking for `threads` threads, with the warning
/// to print, if any; `Err` is the fatal diagnostic of an unusable
/// jobserver.
pub(crate) fn grant(requested: bool, threads: usize) -> Result<(Grant, Option<Diagnostic>), Diagnostic> {
    if !requested || threads <= 1 {
        return Ok((Grant { threads, _tokens: Vec::new() }, None));
    }
    grant_from(jobserver(), threads)
}

fn grant_from(found: &Jobserver, threads: usize) -> Result<(Grant, Option<Diagnostic>), Diagnostic> {
    let free = || Grant { threads, _tokens: Vec::new() };
    match found {
        Jobserver::Absent => Ok((
            free(),
            Some(Diagnostic::warning(
                "GNU Jobserver support requested, but no compatible jobserver found. Ignoring '--jobserver'",
            )),
        )),
        Jobserver::Broken => Err(Diagnostic::fatal("Jobserver requested, but an error occurred")),
        Jobserver::Usable(client) => {
            let mut tokens = Vec::new();
            while tokens.len() + 1 < threads {
                match client.try_acquire() {
                    Ok(Some(token)) => tokens.push(token),
                    Ok(None) => break,
                    // Make's anonymous pipe (before GNU make 4.4): taking a
                    // token without waiting would need O_NONBLOCK on a
                    // descriptor shared with make; this thread's own token
                    // is all the compile uses.
                    Err(e) if e.kind() == std::io::ErrorKind::Unsupported => break,
                    Err(_) => return Err(Diagnostic::fatal("Jobserver requested, but an error occurred")),
                }
            }
            Ok((Grant { threads: tokens.len() + 1, _tokens: tokens }, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anonymous_pipe_leaves_one_thread_and_its_tokens() {
        // `Client::new` makes an anonymous pipe, like make before 4.4.
        let client = jobserver::Client::new(2).unwrap();
        let found = Jobserver::Usable(client.clone());
        let (grant, warning) = grant_from(&found, 4).unwrap();
        assert!(warning.is_none());
        assert_eq!((grant.threads, client.available().unwrap()), (1, 2));
    }

    #[test]
    fn no_jobserver_warns_and_a_broken_one_is_fatal() {
        let (grant, warning) = grant_from(&Jobserver::Absent, 4).unwrap();
        assert_eq!(grant.threads, 4);
        assert!(warning.unwrap().message.contains("no compatible jobserver found"));
        assert!(grant_from(&Jobserver::Broken, 4).is_err());
    }
}
