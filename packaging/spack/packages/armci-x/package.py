# Spack package for armci-x (packaging/spack/README.md says how to add this repository, install from a
# local tarball, and point NWChem or Global Arrays at any `armci` provider).
#
# Written for Spack 1.x (build systems in the builtin repository, spack_repo.builtin.build_systems) and
# loadable by Spack 0.2x (build systems exported by spack.package); this repository keeps the older
# layout (repo.yaml without `api:`, packages/armci-x/), which both read.
import os

from spack.package import *

try:
    from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
except ImportError:
    pass


class ArmciX(AutotoolsPackage):
    """armci-x: ARMCI (the one-sided communication library under Global Arrays and NWChem) over MPI-3
    one-sided communication, in C++.  A drop-in for ARMCI-MPI: same armci.h ABI, libarmci in PREFIX/lib.

    Every build also installs libarmcix-mpiwrap (MPI wrappers for progress ranks, yielding waits and MPI
    call timing; linked ahead of libarmci by programs that want them), the run-time profiler
    (ARMCI_PROFILE=1) and the PARMCI profiling interface: the build has no switch for them, so they are
    not variants.  CMake projects use find_package(armci) (targets armci::armci, armci::mpiwrap);
    others pkg-config armci."""

    # armci-x publishes no download address of its own: the tarball is the one tools/make-release.sh makes
    # (the same bytes from the same sources), and Spack takes it from a mirror the user adds, where it
    # looks for armci-x/armci-x-VERSION.tar.gz (the url's file name), or from the address the user gives
    # in ARMCIX_SPACK_URL (file:// or https://, with the version in the file name).  The placeholder below
    # (RFC 2606's example.org) is never fetched from when either is set (packaging/spack/README.md).
    homepage = "https://example.org/armci-x"
    url = os.environ.get("ARMCIX_SPACK_URL") or "https://example.org/armci-x/armci-x-1.0.0.tar.gz"

    # The sha256 of the tarball tools/make-release.sh makes from the release's sources, written by
    # `tools/make-release.sh --record` with packaging/spack/releases.txt (this directory is not in the
    # tarball, so the checksum does not change what it sums).
    version("1.0.0", sha256="3189b298ea3ebcb57f3f5494616dfa95dfa161411ca7f62f97674dac2d5fc82a")

    variant("shared", default=True, description="Build and install libarmci.so and libarmcix-mpiwrap.so")
    variant(
        "static",
        default=True,
        description="Build and install libarmci.a (C++ inside: a C or Fortran link line adds -lstdc++)",
    )
    conflicts("~shared~static", msg="armci-x needs at least one of +shared and +static")

    provides("armci")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("mpi@3:")

    def configure_args(self):
        mpi = self.spec["mpi"]
        # configure takes MPI's compiler wrappers as CC and CXX (armci-x is built with them, and its tests
        # launch with the matching mpiexec); --with-mpi=PATH/mpicc finds the rest beside it.
        args = [
            f"--with-mpi={mpi.mpicc}",
            f"CC={mpi.mpicc}",
            f"CXX={mpi.mpicxx}",
            # The Global Arrays integration tests are for the source tree, not for an install.
            "--without-ga",
        ]
        args.extend(self.enable_or_disable("shared"))
        args.extend(self.enable_or_disable("static"))
        return args

    @property
    def libs(self):
        # libarmci alone: libarmcix-mpiwrap is opt-in and goes ahead of it where wanted.
        shared = self.spec.satisfies("+shared")
        return find_libraries("libarmci", root=self.prefix, shared=shared, recursive=True)

    @property
    def headers(self):
        return find_headers("armci", root=self.prefix.include, recursive=False)

    def setup_dependent_build_environment(self, env, dependent_spec):
        # What ARMCI-MPI's package sets for its dependents (ARMCIMPI_DIR), under a name of ours, and the
        # external-ARMCI prefix NWChem's makefiles read.
        env.set("ARMCIX_DIR", self.prefix)
        env.set("EXTERNAL_ARMCI_PATH", self.prefix)

    @run_after("install")
    def check_install_layout(self):
        # NWChem links -L$(EXTERNAL_ARMCI_PATH)/lib -larmci and GA's --with-armci=PREFIX prefers
        # PREFIX/lib64 when it exists: the library must be in PREFIX/lib and nowhere else.
        lib = join_path(self.prefix, "lib")
        if not any(os.path.exists(join_path(lib, f)) for f in ("libarmci.so", "libarmci.a")):
            raise InstallError(f"armci-x: no libarmci in {lib}")
        if os.path.exists(join_path(self.prefix, "lib64")):
            raise InstallError(f"armci-x: {self.prefix}/lib64 exists; GA's --with-armci would search it")
