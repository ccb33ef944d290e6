import torch

# --8<-- [start:make]
t = torch.arange(6).view(2, 3)
print(t, t.stride())
# --8<-- [end:make]
