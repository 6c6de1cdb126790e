package ociimage

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// WriteTarball writes img as a tarball that `docker load` (and podman
// load) takes, tagged tag (default DefaultTag), replacing path atomically.
func WriteTarball(path string, img v1.Image, tag string) error {
	if tag == "" {
		tag = DefaultTag
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	if err := tarball.WriteToFile(tmp, ref, img); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteLayout writes img into the OCI image layout at dir (created when
// missing, added to when it is one), tagged tag (default DefaultTag);
// skopeo, crane, podman and `docker load` of its tar (Docker 25 and later)
// read it.
func WriteLayout(dir string, img v1.Image, tag string) error {
	if tag == "" {
		tag = DefaultTag
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	// containerd (and so Docker 25+ loading the layout as a tar) names the
	// image by io.containerd.image.name; the OCI annotation is the tag.
	full := ref.Name()
	if ref.RegistryStr() == name.DefaultRegistry {
		full = "docker.io/" + ref.RepositoryStr() + ":" + ref.TagStr()
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, mutate.IndexMediaType(empty.Index, types.OCIImageIndex)); err != nil {
			return err
		}
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          full,
	}))
}
