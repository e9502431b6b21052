// three.js's side of scripts/threejs-bench.sh (run that, not this): times
// SkeletonUtils.retargetClip on CMU 01_01 onto itself and onto RobotExpressive, and
// SkeletonUtils.retarget on one pose, then runs our clip_timing example on the same clip and
// prints both in one table. Node only: the GLB is read without a DOM (its images dropped).
//
// Environment: THREE_DIR (the npm prefix holding three), OURS (the clip_timing binary),
// RUNS (whole-clip runs, default 15), POSE_RUNS (single-pose runs, default 2000).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const threeDir = process.env.THREE_DIR;
const ours = process.env.OURS;
const RUNS = Number(process.env.RUNS || 15);
const POSE_RUNS = Number(process.env.POSE_RUNS || 2000);
const BVH = join(repo, 'assets/bvh/01_01.bvh');
const GLB = join(repo, 'assets/gltf/RobotExpressive.glb');

const addon = (p) => import(pathToFileURL(join(threeDir, 'node_modules/three/examples/jsm', p)));
const THREE = await import(pathToFileURL(join(threeDir, 'node_modules/three/build/three.module.js')));
const { BVHLoader } = await addon('loaders/BVHLoader.js');
const { GLTFLoader } = await addon('loaders/GLTFLoader.js');
const SkeletonUtils = await addon('utils/SkeletonUtils.js');

function loadBvh() {
  return new BVHLoader().parse(readFileSync(BVH, 'utf8'));
}

/** A skeleton as retargetClip wants its target: an object with a `skeleton`. */
function holder(skeleton) {
  const o = new THREE.Object3D();
  o.add(skeleton.bones[0]);
  o.skeleton = skeleton;
  o.updateMatrixWorld(true);
  skeleton.calculateInverses();
  return o;
}

/** The GLB with its images, textures and samplers removed: no DOM to decode them in node. */
function glbWithoutImages(path) {
  const buf = readFileSync(path);
  const jsonLength = buf.readUInt32LE(12);
  const json = JSON.parse(buf.subarray(20, 20 + jsonLength).toString('utf8'));
  const binChunk = buf.subarray(20 + jsonLength);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials || []) {
    const strip = (o) => {
      for (const k of Object.keys(o)) if (k.endsWith('Texture')) delete o[k];
    };
    strip(m);
    if (m.pbrMetallicRoughness) strip(m.pbrMetallicRoughness);
    delete m.extensions;
  }
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  const pad = (4 - (text.length % 4)) % 4;
  text = Buffer.concat([text, Buffer.alloc(pad, 0x20)]);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + binChunk.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16);
  const out = Buffer.concat([header, text, binChunk]);
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}

function loadRobot() {
  return new Promise((resolve, reject) =>
    new GLTFLoader().parse(glbWithoutImages(GLB), '', resolve, reject));
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { runs: n, median_ms: median, min_ms: s[0], max_ms: s[n - 1],
    median_us: median * 1e3, min_us: s[0] * 1e3, max_us: s[n - 1] * 1e3 };
}

/** `f` timed `runs` times after one untimed run; milliseconds. */
function time(runs, f) {
  f();
  const samples = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    f();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** The source posed at frame 1000, as the single-pose case retargets it. */
function posedSource(source, clip) {
  const helper = new THREE.SkeletonHelper(source.bones[0]);
  helper.skeleton = source;
  const mixer = new THREE.AnimationMixer(helper);
  mixer.clipAction(clip).play();
  mixer.update((1000 / 2752) * clip.duration);
  helper.updateMatrixWorld(true);
  return helper;
}

// Our automatic map onto the robot, target joint -> source joint.
const ourMap = JSON.parse(execFileSync(ours, ['--map', '--source', BVH, '--target', GLB]));

const source = loadBvh();
const selfTarget = holder(loadBvh().skeleton);
const selfNames = Object.fromEntries(source.skeleton.bones.map((b) => [b.name, b.name]));
const gltf = await loadRobot();
let robot = null;
gltf.scene.traverse((o) => { if (!robot && o.isSkinnedMesh) robot = o; });
if (!robot) throw new Error(`${GLB}: no skinned mesh`);
// The same pairs under the names three gives the robot's bones: GLTFLoader drops the dots
// (Foot.L is FootL) and renames a bone that shares its name with a mesh (Torso_1), so each
// bone is found through the glTF node it came from.
const robotNames = {};
for (const bone of robot.skeleton.bones) {
  const node = gltf.parser.associations.get(bone)?.nodes;
  const original = node === undefined ? bone.name : gltf.parser.json.nodes[node].name;
  if (ourMap[original] !== undefined) robotNames[bone.name] = ourMap[original];
}
const unpaired = Object.keys(ourMap).length - Object.keys(robotNames).length;
if (unpaired) throw new Error(`${unpaired} of our pairs name no bone of three's robot`);
console.log('bone names for retargetClip onto RobotExpressive (robot <- CMU, our automatic map):');
console.log(JSON.stringify(robotNames));

const clipOptions = (names) => ({ names, hip: 'Hips' });
let frames = 0;
const three = {
  clip_self: time(RUNS, () => {
    frames = SkeletonUtils.retargetClip(selfTarget, source.skeleton, source.clip, clipOptions(selfNames))
      .tracks[0].times.length;
  }),
  clip_target: time(RUNS, () =>
    SkeletonUtils.retargetClip(robot, source.skeleton, source.clip, clipOptions(robotNames))),
};
const posed = posedSource(loadBvh().skeleton, source.clip);
three.pose_self = time(POSE_RUNS, () => SkeletonUtils.retarget(selfTarget, posed, clipOptions(selfNames)));
three.pose_target = time(POSE_RUNS, () => SkeletonUtils.retarget(robot, posed, clipOptions(robotNames)));
console.log(`three.js ${THREE.REVISION}: ${frames} frames per clip, ${RUNS} clip runs, ${POSE_RUNS} pose runs`);

const ourRuns = ['--runs', String(RUNS), '--pose-runs', String(POSE_RUNS), '--source', BVH, '--target', GLB];
const us = JSON.parse(execFileSync(ours, ourRuns));
console.log(`ours: ${us.clip_self.frames} frames per clip, ${us.pose_target.joints} robot joints`);

// Ours frame by frame is three.js's work; with the feet planted (our session's default)
// it also finds contacts and solves leg IK, which three.js does not: shown against the
// same three.js figure. Both sides load their files once and time each retarget from
// them (each of ours builds its retargeter anew); the "fresh session" rows load ours
// again before each run, which leaves the source clip out of the caches (three.js's runs
// never pay that).
const cases = [
  ['whole clip onto itself', 'clip_self', 'ms'],
  ['whole clip onto RobotExpressive', 'clip_target', 'ms'],
  ['whole clip onto itself, ours from a fresh session each run', 'clip_self_fresh', 'ms', 'clip_self'],
  ['whole clip onto RobotExpressive, ours from a fresh session each run', 'clip_target_fresh', 'ms', 'clip_target'],
  ['whole clip onto itself, ours with feet planted', 'clip_self_planted', 'ms', 'clip_self'],
  ['whole clip onto RobotExpressive, ours with feet planted', 'clip_target_planted', 'ms', 'clip_target'],
  ['one pose onto itself', 'pose_self', 'us'],
  ['one pose onto RobotExpressive', 'pose_target', 'us'],
];
const fmt = (s, unit) => {
  const d = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  const u = unit === 'us' ? 'µs' : 'ms';
  return `${d(s[`median_${unit}`])} ${u} (${d(s[`min_${unit}`])}–${d(s[`max_${unit}`])})`;
};
console.log('\n| case | three.js median (min–max) | ours median (min–max) | ratio of medians |');
console.log('|---|---|---|---|');
for (const [label, key, unit, theirs = key] of cases) {
  const ratio = three[theirs].median_ms / us[key].median_ms;
  console.log(`| ${label} | ${fmt(three[theirs], unit)} | ${fmt(us[key], unit)} | ${ratio.toFixed(1)}× |`);
}
