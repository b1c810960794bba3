# ARMCIX_WITH_MPI: choose the MPI compiler wrappers and launcher.
#   --with-mpi=mpich (default) | openmpi | /path/to/mpicc
# Sets CC, CXX (unless the user set them), MPIEXEC and armcix_mpi_flavor.
AC_DEFUN([ARMCIX_WITH_MPI], [
AC_ARG_WITH([mpi], [AS_HELP_STRING([--with-mpi=mpich|openmpi|PATH/mpicc],
  [MPI to build with (default: mpich, through mpicc.mpich/mpicxx.mpich)])], [], [with_mpi=mpich])
AC_ARG_VAR([MPIEXEC], [MPI launcher used by make check (default follows --with-mpi)])
case "$with_mpi" in
  mpich|yes)
    armcix_mpi_flavor=mpich
    : ${CC=mpicc.mpich}
    : ${CXX=mpicxx.mpich}
    : ${MPIEXEC="mpiexec.mpich"} ;;
  openmpi)
    armcix_mpi_flavor=openmpi
    : ${CC=mpicc.openmpi}
    : ${CXX=mpicxx.openmpi}
    : ${MPIEXEC="mpiexec.openmpi --allow-run-as-root --oversubscribe"} ;;
  */*)
    armcix_mpi_flavor=custom
    armcix_mpi_dir=`dirname "$with_mpi"`
    : ${CC="$with_mpi"}
    AS_IF([test -x "$armcix_mpi_dir/mpicxx"], [: ${CXX="$armcix_mpi_dir/mpicxx"}], [: ${CXX="$armcix_mpi_dir/mpic++"}])
    AS_IF([test -x "$armcix_mpi_dir/mpiexec"], [: ${MPIEXEC="$armcix_mpi_dir/mpiexec"}], [: ${MPIEXEC="$armcix_mpi_dir/mpirun"}]) ;;
  *) AC_MSG_ERROR([--with-mpi takes mpich, openmpi or the path of an mpicc wrapper, not '$with_mpi']) ;;
esac
AC_MSG_NOTICE([MPI: $armcix_mpi_flavor (CC=$CC CXX=$CXX MPIEXEC=$MPIEXEC)])
AC_SUBST([MPIEXEC])
dnl Which MPI, for scripts that launch jobs themselves (tools/simhosts.sh: Hydra or Open MPI's mpirun).
MPI_FLAVOR=$armcix_mpi_flavor
AC_SUBST([MPI_FLAVOR])
])

# AX_CXX_COMPILE_STDCXX_17_SIMPLE: require C++17 (adds -std=c++17 if needed).
AC_DEFUN([AX_CXX_COMPILE_STDCXX_17_SIMPLE], [
AC_MSG_CHECKING([whether $CXX supports C++17])
armcix_save_CXXFLAGS="$CXXFLAGS"
CXXFLAGS="$CXXFLAGS -std=c++17"
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <optional>
#include <string_view>]], [[std::optional<int> o = 1; if constexpr (true) { (void)o; }]])],
  [AC_MSG_RESULT([yes])], [AC_MSG_ERROR([a C++17 compiler is required])])
])
