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
Optional Python libraries, imported where they are used.

rosdep has no releasable key for these (only pip keys, or none), so the
ROS package does not depend on them (package.xml); requirements.txt
installs them into the development venv.  Without one, only the feature
that needs it stops, with an ImportError that says what to install.
"""

import importlib

# Import name -> (PyPI requirement, as in requirements.txt).
REQUIREMENTS = {
    'cvxpy': 'cvxpy>=1.6.0,<2',
    'distributed': 'dask[distributed]>=2024.8.0,<2027',
    'rosbags': 'rosbags>=0.11.0,<0.12',
    'threadpoolctl': 'threadpoolctl>=3.1.0,<4',
    'toppra': 'toppra>=0.6.9,<0.7',
}


def install_hint(name):
    """Return how to install the optional library ``name``."""
    return ('pip install "%s" (or pip install -r requirements.txt); it is '
            'not a dependency of the ROS package: rosdep has no key for it'
            % REQUIREMENTS[name])


def import_optional(name, purpose):
    """
    Import and return the optional module ``name`` (dotted names work).

    ImportError naming ``purpose`` and what to install when it is missing.
    """
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ImportError('%s needs the Python package %s: %s (%s)' % (
            purpose, name.split('.')[0], install_hint(name.split('.')[0]),
            error)) from error
