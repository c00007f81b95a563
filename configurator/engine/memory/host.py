"""The host around the cards: each job's CPU RAM and NVMe, summed per build, and the DIMMs and drives that hold them.

RAM per job (its whole node, all its ranks): the model as each process loads it (the framework's loading path), each
process's own runtime (ASSUMPTION), the states offload keeps on the host (engine/memory/estimate.py's figure), the
pinned buffers ZeRO-Infinity stages NVMe traffic through, the batches the data loader pins, and a checkpoint staged in
host memory while it is written; the build adds the OS's reserve (ASSUMPTION). The load is counted beside the
training-time terms, not instead of them: a conservative sum, as the loaded copy is released when the model moves to
the cards (the allocator may keep the pages) while offload and staging come after it. NVMe per job: ZeRO-Infinity's
swap files, the checkpoints the run keeps, and the model's own files. The jobs of a build run at the same time, so
their needs add up.

GB = 10^9 B throughout; DIMMs are labelled in binary GB (a "64 GB" RDIMM holds 64 GiB) and drives in TB = 10^12 B.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from configurator.catalog.chassis import ChassisSpec
from configurator.catalog.models import ModelSpec
from configurator.catalog.units import GB, GIB
from configurator.engine.memory import moe, rl
from configurator.engine.memory.precision import BF16, FP32
from configurator.engine.memory.states import Parameters, trained_layout
from configurator.engine.model.build import Build, Job
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import HostPart, HostResult, HostTerm, JobResult
from configurator.engine.model.stack import stack_of

# DeepSpeed's ZeRO-Infinity defaults (deepspeed/runtime/zero/offload_config.py): offload_param buffer_count=5,
# buffer_size=1e8 elements of the 16-bit parameter dtype; offload_optimizer buffer_count=4 (the docs: "at least the
# number of states maintained per parameter by the optimizer", Adam's 4); sub_group_size=1e9 elements
# (deepspeed/runtime/zero/config.py), the most one optimizer swap buffer holds (swap_tensor/
# partitioned_optimizer_swapper.py allocates buffer_count buffers of the largest sub-group, fp32, pinned).
DS_PARAM_BUFFER_COUNT = 5
DS_PARAM_BUFFER_SIZE = 1e8
DS_OPTIMIZER_BUFFER_COUNT = 4
DS_SUB_GROUP_SIZE = 1e9
# A causal-LM batch as the Trainer's collator hands it over: input_ids, attention_mask and labels, int64 each
# (transformers DataCollatorForLanguageModeling / default_data_collator).
BATCH_TENSORS = 3
INT64 = 8

# The largest file save_pretrained writes: huggingface_hub serialization/_base.py MAX_SHARD_SIZE = "5GB" (GB = 10^9,
# its SIZE_UNITS), the default of split_torch_state_dict_into_shards that transformers' save_pretrained calls; the
# published checkpoints are cut this way (Llama 3.3 70B: 30 files of at most 5 GB, model.safetensors.index.json).
CHECKPOINT_SHARD_GB = 5.0
# ASSUMPTION (no measurement found that settles it): each training process's own host memory beside any tensor it
# holds: the Python interpreter, torch and its CUDA libraries and the CUDA context's host side. pytorch/pytorch#12873
# measured 1.1 GiB of RSS added by the first CUDA tensor (CUDA 9/10, before lazy module loading), on top of ~0.15 GiB
# for Python with torch imported; NCCL, the tokenizer and the dataset's Arrow buffers come on top. Measured since, none
# of them an LLM fine-tuning process (so the figure stays an assumption, above them): with lazy module loading
# (PyTorch 2.2, CUDA 11.8) `import torch` peaks at 322,040 kB and one CUDA tensor at 438,632 kB of maximum RSS
# (pytorch/pytorch#113326, /usr/bin/time -v); a whole bert-base training rank holds 1.3 and 1.6 GB of RSS, DataLoader
# workers not included (traceopt-ai/traceml#401); fairseq's transformer base ~1.9 GB per GPU (facebookresearch/
# fairseq#574, 2019). Named so a shop can replace it with its own `ps`.
ASSUMPTION_PROCESS_HOST_GB = 3.0
# ASSUMPTION (no source found): what the OS, the page cache's working set, sshd, monitoring and the NVIDIA driver
# daemons keep on a training server, once per build.
ASSUMPTION_OS_RESERVE_GB = 8.0

# DDR5 RDIMM sizes as sold (Lenovo ThinkSystem SR630 V3 manual, memory: TruDDR5 RDIMM 16, 32, 64 GB and 3DS RDIMM
# 128, 256 GB; https://www.easymanua.ls/lenovo/thinksystem-sr630-v3/manual?p=15)
DIMM_SIZES_GB = (16, 32, 64, 128, 256)
# Enterprise NVMe SSD capacities (read-intensive ladder 1.92 / 3.84 / 7.68 TB in HPE's SSD selection, QuickSpecs
# DA-16896; 15.36 TB is the next step of the same ladder in U.2 / E3.S lines)
DRIVE_SIZES_TB = (1.92, 3.84, 7.68, 15.36)

SRC_OFFLOAD = ("FSDP CPUOffload(offload_params=True) (torch/distributed/fsdp/api.py) or DeepSpeed offload_optimizer / "
               "offload_param device cpu (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py): the states in pinned "
               "host memory")  # fmt: skip
SRC_NVME_BUFFERS = ("DeepSpeed offload_config.py defaults: offload_param 5 x 1e8 16-bit elements, offload_optimizer "
                    "4 fp32 buffers of a sub-group (sub_group_size 1e9), pinned, per rank")  # fmt: skip
SRC_LOADER = ("Trainer defaults: dataloader_num_workers=0 (the main process builds each batch), "
              "dataloader_pin_memory=True; 3 int64 tensors per batch. Hugging Face datasets memory-map their Arrow "
              "files, so the dataset itself sits in the page cache, not in each process")  # fmt: skip
SRC_STAGING = ("PyTorch DCP async_save copies each rank's state dict into CPU buffers first "
               "(\"checkpoint_size_per_rank X number_of_ranks\", recipe distributed_async_checkpoint_recipe); "
               "FSDP FULL_STATE_DICT with offload_to_cpu gathers it on rank 0's host")  # fmt: skip
SRC_LOAD_FULL = ("transformers modeling_utils.py PreTrainedModel.from_pretrained without a device_map: the "
                 "checkpoint's weights land on the CPU (safetensors shard by shard, memory-mapped) and the whole "
                 "model is resident before the trainer moves it to the card; every process does it (DDP, and "
                 "FSDP without cpu_ram_efficient_loading: accelerate dataclasses.py "
                 "FullyShardedDataParallelPlugin)")  # fmt: skip
SRC_LOAD_RANK0 = ("FSDP cpu_ram_efficient_loading (accelerate utils/dataclasses.py FullyShardedDataParallelPlugin: "
                  "\"only the first process loads the pretrained model checkpoint while all other processes have "
                  "empty weights\"; transformers modeling_utils.py is_fsdp_enabled / is_local_dist_rank_0): rank 0 "
                  "holds the whole model, FSDP broadcasts it (sync_module_states, fsdp_utils.py)")  # fmt: skip
SRC_LOAD_SHARD = ("one checkpoint shard (huggingface_hub MAX_SHARD_SIZE 5 GB) per process at a time: transformers "
                  "modeling_utils.py loads the safetensors files one by one; QLoRA's bitsandbytes quantiser "
                  "(quantizers/quantizer_bnb_4bit.py, device_map on the card) quantises each shard on the card; "
                  "DeepSpeed ZeRO-3 zero.Init partitions the parameters at construction "
                  "(integrations/deepspeed.py _load_state_dict_into_zero3_model copies each shard into "
                  "them)")  # fmt: skip
SRC_LOAD_META = ("built on the meta device and sharded before any weight exists (the framework's meta_init, "
                 "specs/frameworks.yaml): each rank reads its own part of the checkpoint")  # fmt: skip
SRC_PROCESS = ("ASSUMPTION_PROCESS_HOST_GB (engine/memory/host.py): Python, torch, the CUDA libraries and the CUDA "
               "context's host side per process, not measured here (pytorch/pytorch#12873 saw 1.1 GiB from CUDA "
               "init alone before lazy loading, pytorch/pytorch#113326 0.44 GB with it; a bert-base training rank "
               "holds 1.3-1.6 GB, traceopt-ai/traceml#401; no LLM fine-tuning process measured)")  # fmt: skip
SRC_OS = ("ASSUMPTION_OS_RESERVE_GB (engine/memory/host.py): the OS, daemons and the NVIDIA driver's services, once "
          "per build; no source found")  # fmt: skip
SRC_SWAP = ("ZeRO-Infinity (offload_param / offload_optimizer device nvme): 16-bit parameter partitions "
            "(AsyncPartitionedParameterSwapper) and the fp32 master, optimizer states and gradients "
            "(PartitionedOptimizerSwapper) in swap files under nvme_path")  # fmt: skip
SRC_CHECKPOINT = ("Transformers Trainer _save_checkpoint: the model (LoRA: the adapters only) and optimizer.pt with "
                  "the optimizer's states, save_total_limit of them kept")  # fmt: skip
SRC_MODEL_FILES = "the model's safetensors in the Hugging Face cache, as published: 16-bit weights"
# a checkpoint that ships its experts in MXFP4 (gpt-oss: quantization_config quant_method mxfp4, catalog expert_format)
SRC_MODEL_FILES_MXFP4 = ("the model's safetensors in the Hugging Face cache, as published: the experts in MXFP4 (4.25 "
                         "bits a weight, blocks and scales), the rest 16-bit (gpt-oss model card)")  # fmt: skip
SRC_MODEL_FILES_SHARED = ("one copy in the Hugging Face cache serves every job of the build that trains this model "
                          "(huggingface_hub's cache, guide \"Understand caching\": one models--<org>--<name> folder "
                          "of blobs per repo, shared by every process on the machine)")  # fmt: skip


@dataclass(frozen=True)
class JobHost:
    ram: tuple[HostTerm, ...]
    nvme: tuple[HostTerm, ...]

    @property
    def ram_gb(self) -> float:
        return sum(t.gb for t in self.ram)

    @property
    def nvme_gb(self) -> float:
        return sum(t.gb for t in self.nvme)


def checkpoint_bytes(job: Job, p: Parameters) -> float:
    """What one checkpoint of the job holds: the trained weights as the engine keeps them (a full fine-tune: the whole
    model; LoRA / QLoRA: the adapters) and the optimizer's states for every trained parameter (fp32 master included
    where the engine keeps one)."""
    tb, _ = trained_layout(job)
    weights = (p.total if job.method == "full" else p.trainable) * tb.weight
    return weights + p.trainable * tb.optimizer


def loaded_bytes(job: Job, model: ModelSpec, p: Parameters) -> float:
    """Bytes of the base model as the job loads it: 16-bit (p.total x 2 B), or where the job keeps gpt-oss's experts
    in MXFP4 as shipped, the bytes the cards hold too (engine/memory/moe.py base_weight_bytes: transformers
    Mxfp4GptOssExperts' blocks and scales, its fp32 biases, the rest bf16)."""
    return moe.base_weight_bytes(model) if moe.stores_mxfp4(model, job) else p.total * BF16


def model_file_bytes(model: ModelSpec, p: Parameters) -> float:
    """Bytes of the checkpoint's files as published: the experts in the format they ship in (MXFP4: 4.25 bits a
    weight, catalog model_spec.py weight_bytes_as_shipped), whatever the job loads them as; else 16-bit."""
    return model.weight_bytes_as_shipped() if model.expert_format != "bf16" else p.total * BF16


def model_files_what(model: ModelSpec) -> str:
    """The NVMe term's name for a model's files (its key, model_files_key, is what the build counts once)."""
    return f"model files of {model.name}"


def model_files_key(model: ModelSpec) -> str:
    """What makes two jobs' model files one copy on the server: the same model (by id; two models may share a
    display name)."""
    return f"model-files:{model.id}"


def loading_term(job: Job, p: Parameters, ranks: int, model: ModelSpec) -> HostTerm:
    """The job's host RAM while its model loads, all its ``ranks`` processes together: the checkpoint as the job
    loads it (loaded_bytes), held whole, one shard at a time, or once on rank 0, as the framework loads it. A
    full-fine-tune RL job that keeps a frozen reference copy (engine/memory/rl.py keeps_reference) loads the
    checkpoint twice, the same way."""
    copies = 2 if rl.keeps_reference(job) else 1
    size = loaded_bytes(job, model, p) / GB
    shard = min(CHECKPOINT_SHARD_GB, size)
    record = PARALLELISM[job.parallelism]
    stack = stack_of(job)
    if job.method == "qlora" or (record.deepspeed and record.stage == 3):
        gb, what, src = ranks * shard, f"one {shard:.1f} GB checkpoint shard per process", SRC_LOAD_SHARD
    elif stack.meta_init:
        gb, what, src = size, "each rank its own part (meta init)", SRC_LOAD_META
    elif record.fsdp and ranks > 1 and stack.cpu_ram_efficient_loading:
        gb, what, src = size, "the whole model on rank 0 (cpu_ram_efficient_loading)", SRC_LOAD_RANK0
    else:
        where = f"each of {ranks} processes" if ranks > 1 else "its one process"
        gb, what, src = ranks * size, f"the whole model in {where}", SRC_LOAD_FULL
    if moe.stores_mxfp4(model, job):
        what += ", experts in MXFP4 as published"
    if copies > 1:
        what += ", policy and reference"
    return HostTerm(job=job.name, what=f"model loading: {what}", gb=gb * copies, source=src)


_OS_RESERVE = HostTerm(job="", what=f"OS and services (ASSUMPTION, {ASSUMPTION_OS_RESERVE_GB:g} GB)",
                       gb=ASSUMPTION_OS_RESERVE_GB, source=SRC_OS)  # fmt: skip


def os_reserve_term() -> HostTerm:
    """The build's OS reserve (ASSUMPTION), once per build; ``job`` is empty: no job owns it. One frozen record of
    constants, made once at import (every evaluation built the same one)."""
    return _OS_RESERVE


def job_host(job: Job, p: Parameters, ranks: int, offload: str, offloaded_per_rank: float | None,
             shards: int, model: ModelSpec) -> JobHost:  # fmt: skip
    """The job's host RAM and NVMe terms on its node (``ranks`` processes, one per card or MIG instance)."""
    name = job.name
    ram: list[HostTerm] = [
        loading_term(job, p, ranks, model),
        HostTerm(
            job=name,
            what=f"process runtime, {ranks} × {ASSUMPTION_PROCESS_HOST_GB:g} GB (ASSUMPTION)",
            gb=ranks * ASSUMPTION_PROCESS_HOST_GB,
            source=SRC_PROCESS,
        ),
    ]
    nvme: list[HostTerm] = []
    if offload == "cpu" and offloaded_per_rank:
        ram.append(HostTerm(job=name, what="offloaded states", gb=offloaded_per_rank * ranks / GB,
                            source=SRC_OFFLOAD))  # fmt: skip
    if offload == "nvme":
        sub_group = min(DS_SUB_GROUP_SIZE, p.trainable / max(shards, 1))
        per_rank = DS_PARAM_BUFFER_COUNT * DS_PARAM_BUFFER_SIZE * BF16 + DS_OPTIMIZER_BUFFER_COUNT * sub_group * FP32
        ram.append(HostTerm(job=name, what="ZeRO-Infinity pinned buffers", gb=per_rank * ranks / GB,
                            source=SRC_NVME_BUFFERS))  # fmt: skip
        tb, _ = trained_layout(job)
        swap = p.total * BF16 + p.trainable * (tb.optimizer + FP32)
        nvme.append(HostTerm(job=name, what="ZeRO-Infinity swap", gb=swap / GB, source=SRC_SWAP))
    batch = job.micro_batch_size * job.sequence_length * BATCH_TENSORS * INT64
    ram.append(HostTerm(job=name, what="data loader batches (pinned)", gb=batch * ranks / GB, source=SRC_LOADER))
    ckpt = checkpoint_bytes(job, p)
    ram.append(HostTerm(job=name, what="checkpoint staging", gb=ckpt / GB, source=SRC_STAGING))
    if job.checkpoints_kept:
        nvme.append(HostTerm(job=name, what=f"checkpoints ({job.checkpoints_kept} kept)",
                             gb=ckpt * job.checkpoints_kept / GB, source=SRC_CHECKPOINT))  # fmt: skip
    nvme.append(HostTerm(job=name, what=model_files_what(model), gb=model_file_bytes(model, p) / GB,
                         source=SRC_MODEL_FILES_MXFP4 if model.expert_format == "mxfp4" else SRC_MODEL_FILES,
                         shared_key=model_files_key(model)))  # fmt: skip
    return JobHost(tuple(ram), tuple(nvme))


def dimm_part_id(size_gb: float) -> str:
    return f"dimm-{size_gb:g}gb"


def drive_part_id(tb: float) -> str:
    return f"nvme-{tb:g}tb"


@functools.lru_cache(maxsize=256)  # a frozen record of a few discrete values: the same few parts, build after build
def _dimm(count: int, size: float, kind: str, stated: bool) -> HostPart:
    return HostPart(kind="dimm", count=count, size=size, description=f"{kind}, {size:g} GB",
                    part_id=dimm_part_id(size), stated=stated, capacity_gb=count * size * GIB / GB)  # fmt: skip


@functools.lru_cache(maxsize=256)
def _drive(count: int, tb: float, form: str, stated: bool) -> HostPart:
    return HostPart(kind="drive", count=count, size=tb, description=f"NVMe SSD, {tb:g} TB ({form})",
                    part_id=drive_part_id(tb), stated=stated, capacity_gb=count * tb * 1000)  # fmt: skip


def pick_dimms(need_gb: float, slots: int, max_dimm: float, sockets: int,
               channels: int | None = None) -> tuple[int, int] | None:  # fmt: skip
    """The (count, size) of DIMMs that holds ``need_gb``, at most ``slots``. With the CPU's ``channels`` per socket
    known: every channel of every socket filled alike (vendors' population rule: the bandwidth CPU Adam and the
    offload copies use grows with the channels filled; Dell, "Balanced Memory with 2nd Generation Intel Xeon Scalable
    Processors"), one DIMM per channel with the smallest size that holds the need, else two per channel (as slots
    allow). Unknown channels: the smallest capacity of whole DIMMs per socket, the more DIMMs on a tie. None where
    none holds it."""
    sizes = [s for s in DIMM_SIZES_GB if s <= max_dimm]
    if channels:
        per_channel = 1
        while channels * sockets * per_channel <= slots:
            count = channels * sockets * per_channel
            fit = next((s for s in sizes if count * s * GIB / GB >= need_gb), None)
            if fit is not None:
                return count, fit
            per_channel += 1
        return None
    best: tuple[float, int, int] | None = None
    for size in sizes:
        per = size * GIB / GB
        count = max(sockets, math.ceil(need_gb / per / sockets) * sockets)
        if count > slots:
            continue
        key = (count * per, -count, size)
        if best is None or key[:2] < best[:2]:
            best = key
    return None if best is None else (-best[1], best[2])


def pick_drives(need_gb: float, bays: int) -> tuple[int, float] | None:
    """The smallest (count, TB) that holds ``need_gb`` in at most ``bays`` drives; the fewer drives on a tie."""
    best: tuple[float, int, float] | None = None
    for tb in DRIVE_SIZES_TB:
        count = max(1, math.ceil(need_gb / (tb * 1000)))
        if count > bays:
            continue
        key = (count * tb, count, tb)
        if best is None or key[:2] < best[:2]:
            best = key
    return None if best is None else (best[1], best[2])


def dimms_misfit(chassis: ChassisSpec, count: int, size_gb: float) -> str | None:
    """Why ``count`` DIMMs of ``size_gb`` do not fit ``chassis`` (more than its slots, or larger than the largest
    DIMM it takes), or None; None where the chassis publishes neither. The check HOST_PARTS_DONT_FIT and the edits
    (engine/editing/host.py) both ask this."""
    spec = chassis.host
    if spec is None:
        return None
    slots, biggest = spec.dimm_slots.value, spec.max_dimm_gb.value
    too_many = slots is not None and count > slots
    too_big = biggest is not None and size_gb > biggest
    if not (too_many or too_big):
        return None
    has = [f"{slots:.0f} DIMM slots" if slots is not None else "",
           f"takes DIMMs of up to {biggest:.0f} GB" if biggest is not None else ""]  # fmt: skip
    fix = "install fewer, larger DIMMs within that" if too_many else "install more, smaller DIMMs"
    return (f"{count} × {size_gb:g} GB DIMMs do not fit {chassis.name}: it has "
            f"{' and '.join(h for h in has if h)}; {fix}.")  # fmt: skip


def drives_misfit(chassis: ChassisSpec, count: int) -> str | None:
    """Why ``count`` drives do not fit ``chassis`` (more than its drive bays), or None; None where the bays are
    unpublished. The check HOST_PARTS_DONT_FIT and the edits both ask this."""
    spec = chassis.host
    bays = spec.drive_bays.value if spec is not None else None
    if bays is None or count <= bays:
        return None
    return f"{count} drives do not fit {chassis.name}: it has {bays:.0f} drive bays; install fewer, larger drives."


def _shared_model_files(terms: list[HostTerm]) -> list[HostTerm]:
    """The build's NVMe terms with each model's files counted once: its jobs run on one server and share the
    Hugging Face cache (SRC_MODEL_FILES_SHARED); a later job's copy stays listed at 0 GB, saying whose it shares."""
    first: dict[str, str] = {}
    out: list[HostTerm] = []
    for t in terms:
        if t.shared_key is None:
            out.append(t)
        elif t.shared_key not in first:
            first[t.shared_key] = t.job
            out.append(t)
        else:
            owner = first[t.shared_key]
            out.append(t.model_copy(update={"what": f"{t.what}, shared with job '{owner}'", "gb": 0.0,
                                            "source": SRC_MODEL_FILES_SHARED, "shared_with": owner}))  # fmt: skip
    return out


def host_result(build: Build, chassis: ChassisSpec, jobs: list[JobResult]) -> HostResult:
    """The build's host need (its jobs run at the same time), and the DIMMs and drives installed or picked for it."""
    ram_terms = [t for j in jobs for t in j.host_ram]
    if ram_terms:
        ram_terms.append(os_reserve_term())
    nvme_terms = _shared_model_files([t for j in jobs for t in j.host_nvme])
    ram_need = sum(t.gb for t in ram_terms)
    nvme_need = sum(t.gb for t in nvme_terms)
    spec = chassis.host
    slots = int(spec.dimm_slots.value) if spec and spec.dimm_slots.value is not None else None
    max_dimm = spec.max_dimm_gb.value if spec else None
    bays = int(spec.drive_bays.value) if spec and spec.drive_bays.value is not None else None
    channels = (int(spec.memory_channels_per_socket.value) if spec and spec.memory_channels_per_socket
                and spec.memory_channels_per_socket.value is not None else None)  # fmt: skip
    kind = spec.dimm_type if spec else "RDIMM"
    form = spec.drive_form_factor if spec else "NVMe"
    stated = build.host or None
    picked_dimms: HostPart | None = None
    if ram_terms:
        pick = pick_dimms(ram_need, slots if slots is not None else 64,
                          max_dimm if max_dimm is not None else max(DIMM_SIZES_GB), chassis.cpu_sockets,
                          channels)  # fmt: skip
        picked_dimms = _dimm(pick[0], pick[1], kind, False) if pick else None
    picked_drives: HostPart | None = None
    if nvme_terms:
        pick_d = pick_drives(nvme_need, bays if bays is not None else 64)
        picked_drives = _drive(pick_d[0], pick_d[1], form, False) if pick_d else None
    dimms = picked_dimms
    if stated is not None and stated.dimms is not None:
        dimms = _dimm(stated.dimms.count, stated.dimms.size_gb, kind, True)
    drives = picked_drives
    if stated is not None and stated.drives is not None:
        drives = _drive(stated.drives.count, stated.drives.tb, form, True)
    return HostResult(ram_terms=ram_terms, nvme_terms=nvme_terms, ram_need_gb=ram_need, nvme_need_gb=nvme_need,
                      ram_max_gb=chassis.max_host_memory_gb, dimm_slots=slots, drive_bays=bays, dimms=dimms,
                      drives=drives, picked_dimms=picked_dimms, picked_drives=picked_drives)  # fmt: skip
