# Copyright 2026 The dynamics_ros Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The package builds with colcon as ROS 2 users build it, and installs its files.

colcon comes from PyPI (colcon-common-extensions); the build runs in a
temporary build/install base so the source tree is left as it was.
"""

from glob import glob
from importlib.metadata import distribution
import os
import shutil
import subprocess
import sys

from conftest import REPO_ROOT
import pytest

ROOT = REPO_ROOT


def console_scripts():
    """Return the console_scripts the installed distribution declares."""
    entry_points = distribution('dynamics_ros').entry_points
    return sorted(e.name for e in entry_points if e.group == 'console_scripts')


@pytest.fixture(scope='module')
def install_base(tmp_path_factory):
    """Run ``colcon build`` once and return its install base."""
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    if not os.path.exists(colcon):
        colcon = shutil.which('colcon')
    assert colcon, 'colcon is not installed (requirements.txt has it)'
    work = tmp_path_factory.mktemp('colcon')
    # The build copies the clone's compiled kernels (make test compiled
    # them first), else compiles every one (python -m dynamics_ros.fast):
    # minutes on a loaded 2-core machine, so the bound only catches a hang.
    result = subprocess.run(
        [colcon, 'build', '--base-paths', ROOT,
         '--packages-select', 'dynamics_ros',
         '--build-base', str(work / 'build'),
         '--install-base', str(work / 'install'),
         '--event-handlers', 'console_direct-'],
        cwd=str(work), capture_output=True, text=True, timeout=1800,
        env=dict(os.environ, COLCON_LOG_PATH=str(work / 'log')))
    assert result.returncode == 0, result.stdout + result.stderr
    return work / 'install' / 'dynamics_ros'


def test_share_files_are_installed(install_base):
    """package.xml, the marker, launch, config and urdf files are in share/."""
    share = install_base / 'share'
    assert (share / 'dynamics_ros' / 'package.xml').is_file()
    assert (share / 'ament_index' / 'resource_index' / 'packages'
            / 'dynamics_ros').is_file()
    for folder, pattern in (('launch', '*launch.py'), ('config', '*.yaml'),
                            ('urdf', '*.urdf')):
        sources = sorted(os.path.basename(p) for p in glob(
            os.path.join(ROOT, folder, pattern)))
        installed = sorted(os.path.basename(p) for p in glob(
            str(share / 'dynamics_ros' / folder / pattern)))
        assert installed == sources, folder
    assert 'puma560.urdf' in os.listdir(share / 'dynamics_ros' / 'urdf')


def test_executables_are_in_lib_package(install_base):
    """Every console script is an executable in lib/dynamics_ros."""
    lib = install_base / 'lib' / 'dynamics_ros'
    for name in console_scripts():
        path = lib / name
        assert path.is_file() and os.access(str(path), os.X_OK), name


def test_installed_package_imports_and_finds_its_robots(install_base):
    """The installed copy imports and finds the default URDF in share/."""
    site = glob(str(install_base / 'lib' / 'python3*' / 'site-packages'))
    assert site, 'no site-packages in the install base'
    code = ('import dynamics_ros, dynamics_ros.resources as r; '
            'print(dynamics_ros.__file__); print(r.robot_urdf())')
    env = dict(os.environ, PYTHONPATH=site[0],
               AMENT_PREFIX_PATH=str(install_base))
    result = subprocess.run([sys.executable, '-c', code], cwd=str(
        install_base), capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    module_path, urdf_path = result.stdout.split()
    assert module_path.startswith(site[0])
    assert urdf_path.startswith(str(install_base)) and os.path.isfile(
        urdf_path)


def test_colcon_build_compiles_the_kernels(install_base):
    """
    The build gave the installed copy's kernels their own cache.

    So a node's first start after ``colcon build`` loads machine code: the
    ready marker of these sources is beside the installed package, and
    loading a kernel module there reads numba's cache without a miss.
    """
    site = glob(str(install_base / 'lib' / 'python3*' / 'site-packages'))
    code = ('from dynamics_ros.fast.compiler import kernels_cached, '
            'ready_marker; from dynamics_ros.fast import crba; '
            's = crba.mass_matrix_kernel.stats; '
            'print(kernels_cached(), ready_marker(), s.cache_path, '
            'sum(s.cache_hits.values()), sum(s.cache_misses.values()))')
    env = dict(os.environ, PYTHONPATH=site[0])
    env.pop('NUMBA_CACHE_DIR', None)
    result = subprocess.run([sys.executable, '-c', code], cwd=str(
        install_base), capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    cached, marker, cache_path, hits, misses = result.stdout.split()
    assert cached == 'True' and marker.startswith(site[0])
    assert cache_path.startswith(site[0])
    assert (int(hits), int(misses)) == (1, 0)
