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
Write the development venv's constraints file: what a fresh install gets.

``pip install --dry-run --ignore-installed --report`` resolves
requirements.txt as a fresh ``make venv`` would on this interpreter,
without installing anything; every resolved distribution is written
pinned (``name==version``), so ``make venv`` (``-c constraints.txt``) on a
fresh clone installs what CI tested.  Run it (``make constraints``) after
changing requirements.txt, and commit the result.

Usage: python scripts/write_constraints.py requirements.txt constraints.txt
"""

import json
import platform
import subprocess
import sys

HEADER = """\
# Written by scripts/write_constraints.py (make constraints): every package a
# fresh install of requirements.txt resolved to on Python %s, pinned
# (ROS 2 %s's wheels: ros-rclpy %s), so that `make venv` (pip install
# -r requirements.txt -c constraints.txt) installs what CI tested.
# Ranges live in requirements.txt; regenerate this file after changing them.
"""
# The ROS 2 release of an rclpy wheel (major.minor), as the ros-<release>-*
# metapackages on PyPI pin it (ros-jazzy-rclpy 7.1.6, ros-kilted-rclpy
# 9.1.2); each constraints file names its release in its header
# (test/package/test_requirements.py).
ROS_RELEASES = {'7.1': 'Jazzy', '9.1': 'Kilted'}


def ros_release(rclpy_version):
    """Return the ROS 2 release whose rclpy is ``rclpy_version``."""
    minor = '.'.join(rclpy_version.split('.')[:2])
    if minor not in ROS_RELEASES:
        raise SystemExit('ros-rclpy %s: which ROS 2 release? (add it to '
                         'ROS_RELEASES)' % rclpy_version)
    return ROS_RELEASES[minor]


def resolve(requirements):
    """Return {name: version} of a fresh install of ``requirements``."""
    result = subprocess.run(
        [sys.executable, '-m', 'pip', 'install', '--dry-run', '--quiet',
         '--ignore-installed', '--report', '-', '-r', requirements],
        capture_output=True, text=True, check=True)
    report = json.loads(result.stdout)
    return {item['metadata']['name']: item['metadata']['version']
            for item in report['install']}


def main(argv):
    """Resolve ``argv[0]`` and write the pins to ``argv[1]``."""
    requirements, output = argv
    pins = resolve(requirements)
    with open(output, 'w') as stream:
        rclpy = pins.get('ros-rclpy', pins.get('ros_rclpy', ''))
        stream.write(HEADER % (platform.python_version(), ros_release(rclpy),
                               rclpy))
        for name in sorted(pins, key=str.lower):
            stream.write('%s==%s\n' % (name, pins[name]))
    print('%d packages pinned in %s' % (len(pins), output))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
