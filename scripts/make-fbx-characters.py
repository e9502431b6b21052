"""Makes FBX characters from the bundled glTF characters with Blender's own exporter.

Run from the repository root:

    blender --background --factory-startup --python scripts/make-fbx-characters.py

For each of assets/gltf/{CesiumMan,RobotExpressive,Fox}.glb (or the names given after `--`) it starts from an empty scene,
imports the GLB with Blender's glTF importer and writes assets/fbx/<name>.fbx with Blender's
FBX exporter: binary FBX 7.4, every action baked at every frame into its own animation stack
("<armature>|<action>"), no leaf bones added, the base colour textures embedded. The files are
test data for the FBX reader: the FBX of a glTF character must read to the same world joint
positions as the glTF. RobotExpressive keeps four of its fourteen clips (KEEP_ACTIONS), to keep
the file small.
"""

import os
import sys

import bpy

# Debian's Blender 3.4 with numpy 1.24: the glTF importer still uses np.bool.
try:
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool
except ImportError:
    pass

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CHARACTERS = ["CesiumMan", "RobotExpressive", "Fox"]
# Actions kept per character (all when not listed): RobotExpressive's fourteen clips baked at
# every frame make a 4.8 MB file; four of them (walk, run, idle, wave) make a small one.
KEEP_ACTIONS = {"RobotExpressive": ["Idle", "Walking", "Running", "Wave"]}


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.unit_settings.system = "METRIC"
    scene.unit_settings.scale_length = 1.0
    scene.render.fps = 24
    scene.render.fps_base = 1.0


def convert(name):
    src = os.path.join(ROOT, "assets", "gltf", name + ".glb")
    out = os.path.join(ROOT, "assets", "fbx", name + ".fbx")
    empty_scene()
    bpy.ops.import_scene.gltf(filepath=src)
    keep = KEEP_ACTIONS.get(name)
    if keep:
        for action in list(bpy.data.actions):
            if action.name.split("_")[0] not in keep:
                bpy.data.actions.remove(action)
    # Every action from the glTF becomes a stack; NLA tracks would add combined ones.
    for obj in bpy.data.objects:
        if obj.animation_data:
            for track in list(obj.animation_data.nla_tracks):
                obj.animation_data.nla_tracks.remove(track)
    bpy.ops.export_scene.fbx(
        filepath=out,
        use_selection=False,
        object_types={"ARMATURE", "MESH", "EMPTY"},
        add_leaf_bones=False,
        apply_unit_scale=True,
        apply_scale_options="FBX_SCALE_NONE",
        axis_forward="-Z",
        axis_up="Y",
        mesh_smooth_type="OFF",
        use_mesh_modifiers=False,
        bake_anim=True,
        bake_anim_use_all_bones=True,
        bake_anim_use_nla_strips=False,
        bake_anim_use_all_actions=True,
        bake_anim_force_startend_keying=True,
        bake_anim_step=1.0,
        bake_anim_simplify_factor=0.0,
        path_mode="COPY",
        embed_textures=True,
    )
    print(f"make-fbx-characters: {out} ({os.path.getsize(out)} bytes)")


def main():
    names = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else CHARACTERS
    for name in names:
        convert(name)


main()
