//! The job boundary: a panic while loading, retargeting, exporting or saving becomes an error
//! the editor shows, never a closed window; the document is left as it was before the job.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The kinds of work the editor guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Load,
    Retarget,
    Edit,
    Export,
    Quality,
    Causes,
    Contacts,
    Save,
}

impl Job {
    pub(crate) fn what(self) -> &'static str {
        match self {
            Job::Load => "Loading",
            Job::Retarget => "The live retarget",
            Job::Edit => "The change",
            Job::Export => "The export",
            Job::Quality => "The quality report",
            Job::Causes => "The search for likely causes",
            Job::Contacts => "The contact bars",
            Job::Save => "Saving",
        }
    }
}

/// Runs `work`, turning a panic into an error. `inject` makes it panic first: the tests'
/// way to prove the boundary holds (see `StudioApp::inject_panic`).
pub fn catch<T>(
    job: Job,
    inject: bool,
    work: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    // Whatever `work` touched is dropped or left as before on a panic: callers keep their
    // document outside and replace it only with a finished result.
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if inject {
            panic!("test hook: {} was made to panic", job.what());
        }
        work()
    }));
    outcome.unwrap_or_else(|payload| {
        Err(anyhow::anyhow!(
            "{} stopped on an internal error ({}). Your project is as it was; please report this.",
            job.what(),
            panic_message(payload.as_ref())
        ))
    })
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "no message".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_in_words() {
        let e = catch(Job::Export, false, || -> anyhow::Result<()> {
            let v: Vec<u8> = Vec::new();
            let _ = v[3];
            Ok(())
        })
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("The export stopped on an internal error"),
            "{text}"
        );
        assert!(text.contains("index out of bounds"), "{text}");
        let e = catch(Job::Load, true, || Ok(1)).unwrap_err();
        assert!(e.to_string().contains("test hook"), "{e}");
        assert_eq!(catch(Job::Save, false, || Ok(7)).unwrap(), 7);
    }
}
