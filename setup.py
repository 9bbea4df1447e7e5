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

"""Build and install dynamics_ros (ament_python: colcon or pip)."""

import filecmp
from glob import glob
import os
import shutil
import subprocess
import sys

from setuptools import find_packages, setup
from setuptools.command.install import install

package_name = 'dynamics_ros'


class InstallAndCompile(install):
    """
    Install (``colcon build`` runs this command), then compile the kernels.

    The nodes' dynamics are numba kernels that compile on first use (about a
    minute in all) and are cached on disk.  Compiling those a user needs
    first here (the rigid chain's: the motor plant's and the regressor's
    compile on their first use), into the cache beside the installed copy
    (``dynamics_ros/fast/__pycache__``), makes the first start after
    ``colcon build`` load machine code instead.
    Without numba nothing is compiled; DYNAMICS_ROS_COMPILE_KERNELS=0 or a
    staged install skips it; a failure only warns (the nodes then compile
    on first start).  Where the source tree's cache already holds them
    (``make venv`` compiled them) it is copied instead of compiled again.
    """

    def run(self):
        """Install, then run ``python -m dynamics_ros.fast --first-use``."""
        super().run()
        # A staged install (``--root``: a wheel build, a distribution
        # package) would carry a cache keyed on the staging paths.
        if self.root or \
                os.environ.get('DYNAMICS_ROS_COMPILE_KERNELS', '1') == '0':
            return
        copy_kernel_cache(os.path.join(os.path.dirname(os.path.abspath(
            __file__)), package_name, 'fast'), os.path.join(
                self.install_lib, package_name, 'fast'))
        path = [self.install_lib] + [
            entry for entry in os.environ.get('PYTHONPATH', '').split(
                os.pathsep) if entry]
        # Run from the install: ``-m`` puts the working folder first on
        # sys.path, and the source tree's copy must not be the one compiled.
        result = subprocess.run(
            [sys.executable, '-m', 'dynamics_ros.fast', '--first-use'],
            cwd=self.install_lib,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(path)))
        if result.returncode != 0:
            print('warning: dynamics_ros kernels not compiled (exit status '
                  '%d): the nodes compile them on first start'
                  % result.returncode)


def copy_kernel_cache(source, installed):
    """
    Copy the source tree's compiled kernels beside the installed copy.

    Numba keys a cached kernel on its source file's modification time and
    size and on the compiled code's own key (dynamics_ros.fast.compiler:
    the sources' digest, the machine), not on the folder, so the cache of
    sources installed unchanged is valid there once the installed files
    carry their sources' times to the nanosecond (setuptools keeps whole
    seconds only); the compile that follows then only loads.  A source
    that differs leaves everything as it was, and that compile fills the
    cache.
    """
    cache = os.path.join(source, '__pycache__')
    sources = sorted(glob(os.path.join(source, '*.py')))
    if not os.path.isdir(cache) or not sources:
        return
    copies = [os.path.join(installed, os.path.basename(path))
              for path in sources]
    if not all(os.path.isfile(copy) and filecmp.cmp(path, copy, False)
               for path, copy in zip(sources, copies)):
        return
    for path, copy in zip(sources, copies):
        stat = os.stat(path)
        os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    target = os.path.join(installed, '__pycache__')
    os.makedirs(target, exist_ok=True)
    copied = 0
    for path in glob(os.path.join(cache, '*')):
        if path.endswith(('.nbi', '.nbc', '.ready')):
            shutil.copy2(path, target)
            copied += 1
    print('dynamics_ros: %d compiled-kernel files copied from %s' % (
        copied, cache))


def share(folder, pattern):
    """Install ``folder/pattern`` into share/dynamics_ros/folder."""
    return (os.path.join('share', package_name, folder),
            sorted(glob(os.path.join(folder, pattern))))


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages',
         ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        share('launch', '*launch.[pxy][yma]*'),
        share('config', '*.yaml'),
        share('urdf', '*.urdf'),
    ],
    # Version ranges live in requirements.txt; on a ROS 2 machine rclpy and
    # the messages come from the distribution (package.xml exec_depend).
    install_requires=['setuptools', 'numpy', 'scipy', 'PyYAML'],
    # Optional: retiming under effort limits (control/retime.py).
    extras_require={'retime': ['toppra']},
    # Not zip-safe: numba caches the compiled kernels beside the modules.
    zip_safe=False,
    cmdclass={'install': InstallAndCompile},
    maintainer='dynamics_ros developers',
    maintainer_email='dev@dynamics-ros.invalid',
    description='Manipulator dynamics for ROS 2 from a URDF.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'inverse_dynamics_node = '
            'dynamics_ros.nodes.inverse_dynamics.node:main',
            'linearization_node = dynamics_ros.nodes.linearization.node:main',
            'simulator_node = dynamics_ros.nodes.simulator.node:main',
            'external_torque_node = '
            'dynamics_ros.nodes.external_torque.node:main',
            'payload_estimation_node = '
            'dynamics_ros.nodes.payload_estimation.node:main',
        ],
    },
)
