# The README's main job: a Global Arrays program on armci-x.
