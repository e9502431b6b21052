//! Pushes eased over frames: a push never comes on in one frame (no pop), and no frame gets
//! less than it needs.

use glam::Vec3;

/// `push` per frame eased over `w` frames each side: its length held to the largest
/// within `w` frames, then averaged over `w` frames each side (never less than the frame's
/// own), along the mean direction of the pushes within `2 w` frames.
pub(super) fn eased(push: &[Vec3], w: usize) -> Vec<Vec3> {
    let n = push.len();
    let span = |f: usize, w: usize| f.saturating_sub(w)..(f + w + 1).min(n);
    let held: Vec<f32> = (0..n)
        .map(|f| {
            push[span(f, w)]
                .iter()
                .map(|v| v.length())
                .fold(0.0, f32::max)
        })
        .collect();
    (0..n)
        .map(|f| {
            let around = &held[span(f, w)];
            let length = around.iter().sum::<f32>() / around.len() as f32;
            let way: Vec3 = push[span(f, 2 * w)].iter().sum();
            way.try_normalize().map_or(Vec3::ZERO, |d| d * length)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_on_one_frame_eases_in_and_out_and_keeps_its_size_there() {
        let mut push = vec![Vec3::ZERO; 21];
        push[10] = Vec3::X * 0.03;
        let out = eased(&push, 3);
        assert!(out[10].x >= 0.03 - 1e-7, "{}", out[10]);
        // Rises step by step: no frame jumps by more than a quarter of the push.
        for f in 1..21 {
            assert!(
                (out[f].x - out[f - 1].x).abs() <= 0.03 / 4.0 + 1e-6,
                "frame {f}"
            );
        }
        assert_eq!(out[0], Vec3::ZERO);
        assert_eq!(out[20], Vec3::ZERO);
    }
}
