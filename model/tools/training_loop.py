"""The epoch loop both training scripts (train_patchtst.py, train_itransformer.py) share.

Adam steps over shuffled training windows at a learning rate per epoch (by default
multiplied by lr_decay after each epoch), validation MSE after each epoch picks the best state (early stopping after
`patience` epochs without improvement), and a wall-clock budget: no epoch is started that
the last epoch's duration says would overrun it.
"""

import json
import os
import time

import torch


def exponential_lr(args):
    """lr of 1-based epoch: args.lr, multiplied by args.lr_decay after every epoch."""
    return lambda epoch: args.lr * args.lr_decay ** (epoch - 1)


def train(model, train_starts, batch_loss, validate, args, t_start, learning_rate=None):
    """batch_loss(starts) -> scalar loss of those windows; validate() -> (MSE, MAE);
    learning_rate(epoch) -> lr of that 1-based epoch (default: exponential_lr(args)).

    args: lr, lr_decay, batch_size, epochs, patience, time_budget (0: none), seed. Leaves the
    best state loaded in `model` (eval mode, on the device it trained on) and returns
    (best, curve): best holds val_mse and epoch; curve one record per epoch run (lr, train
    and validation figures).
    """
    learning_rate = learning_rate or exponential_lr(args)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    best = {"val_mse": float("inf")}
    curve = []
    epoch_seconds = 0.0
    bad_epochs = 0
    for epoch in range(1, args.epochs + 1):
        elapsed = time.time() - t_start
        if curve and args.time_budget > 0 and elapsed + epoch_seconds > args.time_budget:
            print("time budget reached after %d epochs (%.0f s)" % (len(curve), elapsed), flush=True)
            break
        t0 = time.time()
        model.train()
        lr = learning_rate(epoch)
        for g in opt.param_groups:
            g["lr"] = lr
        order = train_starts[torch.randperm(len(train_starts), generator=gen)]
        total, steps = 0.0, 0
        for i in range(0, len(order), args.batch_size):
            opt.zero_grad()
            loss = batch_loss(order[i:i + args.batch_size])
            loss.backward()
            opt.step()
            total += float(loss)
            steps += 1
        val_mse, val_mae = validate()
        epoch_seconds = time.time() - t0
        curve.append({"epoch": epoch, "lr": lr, "train_mse": round(total / steps, 6),
                      "val_mse": round(val_mse, 6), "val_mae": round(val_mae, 6)})
        print("epoch %d  lr %.2e  train %.4f  val MSE %.4f MAE %.4f  (%.1f s, total %.0f s)"
              % (epoch, lr, total / steps, val_mse, val_mae, epoch_seconds, time.time() - t_start),
              flush=True)
        if val_mse < best["val_mse"]:
            # A copy on the CPU: the state of a model on a GPU would stay there otherwise.
            best = {"val_mse": val_mse, "epoch": epoch,
                    "state": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}}
            bad_epochs = 0
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                print("early stop: no val improvement for %d epochs" % bad_epochs, flush=True)
                break
    model.load_state_dict(best["state"])
    model.eval()
    return best, curve


def save_checkpoint(args, model, cfg, name, scaler, best, epochs_run, test, starts, split,
                    t_start, extra=None):
    """Writes OUT.pt (torch.save(model.state_dict()), as TSLib does) and OUT.json: the config,
    name, scaler and a training record (test = (MSE, MAE); extra: more record fields)."""
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save(model.state_dict(), args.out + ".pt")
    training = {
        "data": "ETTh1", "split": split,
        "epochs_run": epochs_run, "best_epoch": best["epoch"], "lr": args.lr,
        "lr_decay": args.lr_decay, "batch_size": args.batch_size, "seed": args.seed,
        "val_mse": best["val_mse"], "test_mse": test[0], "test_mae": test[1],
    }
    training.update(extra or {})
    training.update({"windows": {k: len(v) for k, v in starts.items()},
                     "train_seconds": round(time.time() - t_start, 1)})
    meta = dict(cfg)
    meta.update({"name": name, "version": "1", "scaler": scaler, "training": training})
    with open(args.out + ".json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print("wrote %s.pt and %s.json" % (args.out, args.out), flush=True)
