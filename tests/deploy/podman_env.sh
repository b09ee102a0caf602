# Sourced by the image test: a private podman set-up under $1 (storage, run state, CNI
# configs, events), with the settings these machines need written once into
# containers.conf / storage.conf instead of repeated as flags:
#   runc       crun fails here (hybrid cgroups)
#   cgroupfs   no systemd to manage cgroups; events go to a file for the same reason
#   vfs        the storage driver that works on these machines; it copies every layer, so
#              the test removes its storage at the end
#   ulimits    podman's default nofile/nproc exceed the sandbox's hard limits
# Usage: . tests/deploy/podman_env.sh DIR   (exports CONTAINERS_CONF, CONTAINERS_STORAGE_CONF)
podman_dir=$1
mkdir -p "$podman_dir/storage" "$podman_dir/run" "$podman_dir/cni" "$podman_dir/tmp"
cat >"$podman_dir/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[network]
network_config_dir = "$podman_dir/cni"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$podman_dir/events.log"
image_copy_tmp_dir = "$podman_dir/tmp"
CONF
cat >"$podman_dir/storage.conf" <<CONF
[storage]
driver = "vfs"
runroot = "$podman_dir/run"
graphroot = "$podman_dir/storage"
CONF
export CONTAINERS_CONF=$podman_dir/containers.conf
export CONTAINERS_STORAGE_CONF=$podman_dir/storage.conf
export TMPDIR=$podman_dir/tmp
