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

"""Exceptions and warnings raised by dynamics_ros."""


class ModelError(ValueError):
    """A robot model cannot be built: names the link or joint and the fault."""


class ModelWarning(UserWarning):
    """A model was built but something in it is probably not what was meant."""


class IdentificationError(ValueError):
    """Recorded data cannot identify a model: names what is missing or weak."""


class UnreadableFile(ModelError, OSError):
    """
    A file a user named is not read: missing, not a regular file, too large.

    A ModelError (the model or config cannot be built) and an OSError, so
    callers that handle a missing or unreadable file as an OSError still do.
    """
