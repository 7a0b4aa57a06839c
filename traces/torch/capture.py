#!/usr/bin/env python3
"""Capture PyTorch memory snapshots for `tlbsim alloc` (needs torch and a GPU).

    python3 capture.py --all OUTDIR            # every workload, with and without
                                               # expandable segments, one process each
    python3 capture.py WORKLOAD OUT.json.gz    # one; PYTORCH_CUDA_ALLOC_CONF decides
                                               # the allocator settings

Workloads (small on purpose: each snapshot stays well under 1 MB gzipped):
  cnn_train    torchvision-free ResNet-style CNN, SGD training, batch size
               changing every step (24..56 images of 3x96x96)
  tf_infer     6-layer transformer encoder, inference, sequence length
               changing every step (batch 8, 96..512 tokens)
  tf_train     4-layer transformer LM, AdamW training, batch x sequence
               changing every step

Recording starts before the first CUDA allocation, so the trace holds every
request and every segment event (the ground truth tlbsim compares against).
The snapshot is dumped as a pickle and converted with snapshot2json.py (frames
stripped), and a "capture" object records the device and the workload.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import snapshot2json  # noqa: E402

WORKLOADS = ("cnn_train", "tf_infer", "tf_train")


def cnn_train(torch, steps=6):
    nn = torch.nn

    def block(cin, cout, stride):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    model = nn.Sequential(block(3, 64, 1), block(64, 128, 2), block(128, 256, 2), block(256, 512, 2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(steps):
        batch = (24, 40, 32, 56, 48, 36)[step % 6]
        x = torch.randn(batch, 3, 96, 96, device="cuda")
        y = torch.randint(0, 10, (batch,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return {"steps": steps, "batches": "24,40,32,56,48,36", "image": "3x96x96"}


def tf_infer(torch, steps=8):
    nn = torch.nn
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False).cuda().eval()
    lengths = (128, 384, 256, 512, 96, 448, 320, 200)
    with torch.no_grad():
        for step in range(steps):
            x = torch.randn(8, lengths[step % len(lengths)], 512, device="cuda")
            model(x).sum().item()
    torch.cuda.synchronize()
    return {"steps": steps, "batch": 8, "lengths": ",".join(map(str, lengths)), "d_model": 512}


def tf_train(torch, steps=6):
    nn = torch.nn

    class LM(nn.Module):
        def __init__(self, vocab=8192, d=384, layers=4):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            layer = nn.TransformerEncoderLayer(d_model=d, nhead=6, dim_feedforward=4 * d, batch_first=True)
            self.body = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab)

        def forward(self, tokens):
            return self.head(self.body(self.emb(tokens)))

    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    shapes = ((16, 128), (8, 320), (12, 256), (4, 512), (16, 192), (10, 384))
    for step in range(steps):
        b, s = shapes[step % len(shapes)]
        tokens = torch.randint(0, 8192, (b, s), device="cuda")
        logits = model(tokens)
        loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), tokens.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return {"steps": steps, "shapes": ";".join(f"{b}x{s}" for b, s in shapes), "d_model": 384}


def capture_one(name, out):
    import torch

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1000000)
    info = globals()[name](torch)
    with tempfile.TemporaryDirectory() as tmp:
        pkl = os.path.join(tmp, "snapshot.pickle")
        torch.cuda.memory._dump_snapshot(pkl)
        snap = snapshot2json.strip_frames(snapshot2json.load_pickle(pkl))
    torch.cuda.memory._record_memory_history(enabled=None)
    props = torch.cuda.get_device_properties(0)
    info.update({"workload": name, "device": props.name, "device_total_memory": props.total_memory,
                 "torch": torch.__version__, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")})
    snap["capture"] = info
    snapshot2json.write_json(snap, out)
    stats = torch.cuda.memory_stats()
    print(f"{out}: {len(snap['device_traces'][0])} events, peak reserved "
          f"{stats.get('reserved_bytes.all.peak')}, device allocs {stats.get('num_device_alloc')}", flush=True)


def capture_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    failed = 0
    for name in WORKLOADS:
        for expandable in (False, True):
            env = dict(os.environ)
            env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True" if expandable else ""
            out = os.path.join(outdir, name + ("_expandable" if expandable else "") + ".json.gz")
            failed |= subprocess.call([sys.executable, os.path.abspath(__file__), name, out], env=env)
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", metavar="OUTDIR")
    ap.add_argument("workload", nargs="?", choices=WORKLOADS)
    ap.add_argument("out", nargs="?")
    a = ap.parse_args(argv)
    if a.all:
        return capture_all(a.all)
    if not a.workload or not a.out:
        ap.error("give WORKLOAD OUT or --all OUTDIR")
    capture_one(a.workload, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
