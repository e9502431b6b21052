//! What `--help` tells a user: every format each command reads.

use crate::common::cli;

#[test]
fn the_help_of_each_reading_command_names_fbx() {
    for command in ["inspect", "retarget", "map", "check", "batch"] {
        let o = cli(&[command, "--help"]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{command} --help");
        assert!(
            text.to_lowercase().contains("fbx"),
            "{command} --help leaves FBX out:\n{text}"
        );
    }
    let o = cli(&["--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for shown in ["[FILE]...", "--source", "--target"] {
        assert!(text.contains(shown), "the editor's files: {shown}\n{text}");
    }
}
